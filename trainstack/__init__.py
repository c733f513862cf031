"""trainstack: one GPU training-cluster spec, four clouds, through Pulumi."""
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parent.parent
__version__ = "0.1.0"
