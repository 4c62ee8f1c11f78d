"""The layers of ../shared/design/ARCHITECTURE.md, read from the source: every import between folders runs down
the floors, no forbidden import, no import cycle.

Every import counts, at the top of a module or inside a function; only those under `if TYPE_CHECKING:` do not
(they never run).
"""

import ast
import tomllib
from fnmatch import fnmatch
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# folio's folders from the ground floor up: a folder's modules import only those of the folders below it
FLOORS = ("engine", "db", "validation", "migrations", "base", "sources", "pages", "runs", "tasks", "flows",
          "deployments", "folio")
PACKAGES = FLOORS
PLAIN = {"prefect", "tasks", "flows", "folio"}  # what the plain packages behind the tasks never import
FORBIDDEN = {  # a package's modules may not import these (packages or modules, with what lies under them)
    "engine": {"prefect", "sqlalchemy", "psycopg", "boto3", "db", "tasks", "flows", "folio", "sources", "pages",
               "validation", "runs", "base"},
    "db": {"engine", "tasks", "flows", "folio", "sources", "pages", "validation", "runs", "base", "migrations"},
    "sources": PLAIN | {"engine", "validation", "runs"},
    "pages": PLAIN | {"runs"},
    "validation": PLAIN | {"db", "sqlalchemy", "sources", "pages", "runs"},
    "runs": PLAIN - {"prefect"},  # runs.recovery asks Prefect's API which flow runs it ended
    "tasks": {"flows", "folio"},
    "flows": {"folio"},
}


def banned(name: str, names: set[str]) -> bool:
    """Whether the module `name` is one of `names` or lies under one."""
    return any(name == other or name.startswith(other + ".") for other in names)


def module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


def runtime_imports(tree: ast.AST) -> set[str]:
    """The modules a module imports when it runs."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)  # a submodule imported by name
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def import_graph() -> dict[str, set[str]]:
    """Each of folio's modules and the modules of folio it imports."""
    sources = [path for package in PACKAGES for path in (ROOT / package).rglob("*.py")]
    imports = {module_name(path): runtime_imports(ast.parse(path.read_text())) for path in sources}
    return {module: {name for name in names if name in imports and name != module} for module, names in imports.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_layer_imports_what_it_must_not():
    broken = []
    for package, forbidden in FORBIDDEN.items():
        for path in (ROOT / package).rglob("*.py"):
            for name in runtime_imports(ast.parse(path.read_text())):
                if banned(name, forbidden):
                    broken.append(f"{module_name(path)} imports {name}")
    assert broken == []


def test_every_import_between_folders_runs_down_the_floors():
    floor = {package: height for height, package in enumerate(FLOORS)}
    uphill = sorted(f"{module} imports {name}" for module, names in import_graph().items() for name in names
                    if floor[name.split(".")[0]] > floor[module.split(".")[0]])
    assert uphill == []


def test_every_folder_of_code_has_its_floor():
    """A new folder of folio's code is placed on a floor before it is used (tests and benchmarks stand outside)."""
    folders = {path.parent.name for path in ROOT.glob("[!.]*/*.py")} - {"tests", "benchmarks"}
    assert folders == set(FLOORS)


def test_no_import_cycles():
    assert cycles(import_graph()) == []


def test_the_engines_types_import_nothing_of_the_engine():
    """engine/types.py is what every stage reads: it names the page source and the trust record by Protocols, not
    by importing them (not even under TYPE_CHECKING), so that no module loop runs through it."""
    tree = ast.parse((ROOT / "engine" / "types.py").read_text())
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names} | {
        node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert not {name for name in imported if banned(name, {"engine"})}


def test_the_checks_see_a_cycle_and_skip_type_checking_imports():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    tree = ast.parse("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import db.models\n"
                     "def f():\n    from db import models\n")
    assert runtime_imports(tree) == {"typing", "typing.TYPE_CHECKING", "db", "db.models"}
    assert banned("folio.cli.errors", {"folio.cli"}) and banned("folio.cli", {"folio.cli"})
    assert not banned("base.settings", {"folio.cli"}) and not banned("dbx", {"db"})


def test_every_package_is_installed():
    """The console script imports from the installed packages, not from the working directory."""
    included = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]["include"]
    assert [package for package in PACKAGES if not any(fnmatch(package, pattern) for pattern in included)] == []
