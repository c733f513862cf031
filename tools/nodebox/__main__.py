"""`python -m tools.nodebox prepare`: build the box's root and fetch what its world serves."""
import sys

from tools.nodebox.root import prepare

if sys.argv[1:] != ["prepare"]:
    sys.exit("usage: python -m tools.nodebox prepare")
prepare()
