"""benchmarks/mutation_planted.py counts a planted mutation as killed only when a test fails:
a copy whose tests cannot even be collected proves nothing about the mutation (issue 26)."""
import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def planted():
    spec = importlib.util.spec_from_file_location("mutation_planted",
                                                  ROOT / "benchmarks" / "mutation_planted.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("mutation_planted", module)   # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def tree(tmp_path):
    (tmp_path / "pkg.py").write_text("def f():\n    return 1\n")
    (tmp_path / "test_f.py").write_text("from pkg import f\n\n\ndef test_f():\n    assert f() == 1\n")
    return tmp_path


def test_a_failing_test_kills_a_passing_one_does_not(tmp_path):
    bench = planted()
    killed, _, missed = bench.run(bench.Mutation("2", "pkg.py", "return 1", "return 2",
                                                 ("test_f.py",)), tree(tmp_path))
    assert killed and missed == ""
    killed, _, missed = bench.run(bench.Mutation("same", "pkg.py", "return 1", "return 1",
                                                 ("test_f.py",)), tmp_path)
    assert not killed and missed == "test_f.py: pytest exit 0"
    assert (tmp_path / "pkg.py").read_text() == "def f():\n    return 1\n"   # undone


def test_a_copy_that_cannot_be_collected_is_no_kill(tmp_path):
    bench = planted()
    killed, _, missed = bench.run(bench.Mutation("broken", "pkg.py", "return 1", "return (",
                                                 ("test_f.py",)), tree(tmp_path))
    assert not killed and missed.startswith("test_f.py: pytest exit 2 (not a test failure)")


def test_every_listed_file_must_kill_it(tmp_path):
    bench = planted()
    (tree(tmp_path) / "test_other.py").write_text("def test_other():\n    assert True\n")
    killed, _, missed = bench.run(bench.Mutation("2", "pkg.py", "return 1", "return 2",
                                                 ("test_f.py", "test_other.py")), tmp_path)
    assert not killed and missed == "test_other.py: pytest exit 0"
