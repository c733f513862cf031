"""The mutation benchmark tests mutated code: mutmut names a mutant after its file's path and
runs it only when that name is the running function's module (issue 26). components/ imports as
trainstack_components, so run in the checkout every mutant of components/ went untested and
the run still printed a score; benchmarks/mutation_score.py stages the tree under the import
names."""
import importlib
import importlib.util
import subprocess
import sys
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[2]


def benchmark():
    spec = importlib.util.spec_from_file_location("mutation_score",
                                                  ROOT / "benchmarks" / "mutation_score.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_each_mutated_file_is_named_as_the_program_imports_it():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]
    packages = set(pyproject["setuptools"]["packages"])   # the names the installed program uses
    staged = benchmark().staged_config(pyproject["mutmut"])["only_mutate"]
    assert "trainstack_components/memory.py" in staged and "trainstack/cost/sizing_cost.py" in staged
    for path in staged:
        name = path.removesuffix(".py").replace("/", ".")   # mutmut's format_utils.get_mutant_name
        assert name.rpartition(".")[0] in packages, f"{path}: no package of the program"
        checkout_file = benchmark().checkout_path(name)   # components/..., policies/...
        module = importlib.import_module(name)
        assert Path(module.__file__).resolve() == (ROOT / checkout_file).resolve()


def test_the_stage_renames_as_the_package_does():
    package_dir = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-dir"]
    assert benchmark().IMPORT_NAMES == {folder: name for name, folder in package_dir.items()}


def test_the_stage_copies_the_checkout_folders_under_both_names():
    staged = benchmark().staged_config({"source_paths": ["components", "trainstack"],
                                        "also_copy": ["examples"]})
    assert staged["source_paths"] == ["trainstack_components", "trainstack"]
    # tests read catalog files by checkout path (ROOT / "components" / ...); code imports the other
    assert staged["also_copy"] == ["examples", "components", "trainstack_components",
                                   "policies", "trainstack_policies"]


def test_module_names_map_back_to_checkout_files():
    bench = benchmark()
    assert bench.checkout_path("trainstack_components.catalog.filesystems") == \
        "components/catalog/filesystems.py"
    assert bench.checkout_path("trainstack.cost.sizing_cost") == "trainstack/cost/sizing_cost.py"
    assert bench.import_path("policies/spend.py") == "trainstack_policies/spend.py"


def test_a_tree_holding_the_import_name_imports_that_folder(tmp_path):
    # mutmut's copy of the stage: trainstack_components/ is the mutated code, components/ an
    # unmutated copy kept for the tests that read catalog files by path.
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "checkout.py").write_text((ROOT / "tests" / "checkout.py").read_text())
    for folder, mark in (("trainstack_components", "mutated"), ("components", "copy"),
                         ("policies", "policies")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "__init__.py").write_text(f"MARK = {mark!r}\n")
    out = subprocess.run(
        [sys.executable, "-c", "import sys; sys.path.insert(0, '.'); "
         "from tests.checkout import activate; activate(); "
         "import trainstack_components, trainstack_policies; "
         "print(trainstack_components.MARK, trainstack_policies.MARK)"],
        cwd=tmp_path, env={"PATH": "/usr/bin:/bin"}, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["mutated", "policies"]
