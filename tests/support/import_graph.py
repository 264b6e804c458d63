"""The import graph of kgraph, compiler and runtime, function-local imports counted.

``ImportGraph(root)`` parses every module under ``root``'s three packages (no import is
run) and records, for each module, the project modules it imports: ``import a.b``,
``from a import b`` (the submodule ``a.b`` when it is one, else the package ``a``) and
relative imports, wherever they stand (module level or inside a function).
"""

from __future__ import annotations

import ast
import collections
import pathlib

PACKAGES = ("kgraph", "compiler", "runtime")  # in pipeline order
RANK = {name: i for i, name in enumerate(PACKAGES)}


class ImportGraph:
    def __init__(self, root, packages=PACKAGES):
        self.root = pathlib.Path(root)
        self.modules = {}
        for package in packages:
            for path in sorted((self.root / package).rglob("*.py")):
                self.modules[self._name(path)] = path
        self.edges = collections.defaultdict(set)
        self.local = []  # (module, imported module, line) of imports inside functions
        for module, path in self.modules.items():
            self._read(module, path)

    def _name(self, path) -> str:
        parts = list(path.relative_to(self.root).with_suffix("").parts)
        return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)

    def _resolve(self, name):
        while name and name not in self.modules:
            name = name.rpartition(".")[0]
        return name or None

    def _read(self, module, path):
        tree = ast.parse(path.read_text(), filename=str(path))
        is_package = path.name == "__init__.py"

        def visit(node, in_function):
            for child in ast.iter_child_nodes(node):
                inside = in_function or isinstance(child, (ast.FunctionDef,
                                                           ast.AsyncFunctionDef, ast.Lambda))
                targets = []
                if isinstance(child, ast.Import):
                    targets = [alias.name for alias in child.names]
                elif isinstance(child, ast.ImportFrom):
                    if child.level:
                        base = module.split(".") if is_package else module.split(".")[:-1]
                        base = base[:len(base) - (child.level - 1)]
                        prefix = ".".join(base + ([child.module] if child.module else []))
                    else:
                        prefix = child.module
                    targets = [f"{prefix}.{a.name}" if f"{prefix}.{a.name}" in self.modules
                               else prefix for a in child.names]
                for target in {self._resolve(t) for t in targets} - {None, module}:
                    self.edges[module].add(target)
                    if in_function:
                        self.local.append((module, target, child.lineno))
                visit(child, inside)

        visit(tree, False)

    def upward(self) -> set:
        """``(importer, imported)`` pairs where a package imports a later one."""
        return {(a, b) for a, targets in self.edges.items() for b in targets
                if RANK[b.split(".")[0]] > RANK[a.split(".")[0]]}

    def cycles(self, ignore=()) -> list:
        """The strongly connected components of more than one module (largest first),
        without the edges in ``ignore``."""
        edges = {a: {b for b in targets if (a, b) not in set(ignore)}
                 for a, targets in self.edges.items()}
        index, low, stack, on_stack, found = {}, {}, [], set(), []
        for start in self.modules:  # Tarjan's algorithm, iterative
            if start in index:
                continue
            work = [(start, iter(sorted(edges.get(start, ()))))]
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
                        work.append((child, iter(sorted(edges.get(child, ())))))
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
        return sorted(found, key=len, reverse=True)


if __name__ == "__main__":  # the figures: python tests/support/import_graph.py
    graph = ImportGraph(pathlib.Path(__file__).resolve().parents[2])
    seam = ("kgraph.engine", "runtime.keras_shell")
    lines = sum(len(path.read_text().splitlines()) for path in graph.modules.values())
    print(f"modules: {len(graph.modules)}, lines: {lines}")
    print(f"function-local project imports: {len(graph.local)} "
          f"({1000 * len(graph.local) / lines:.2f} per 1,000 lines)")
    for module, target, line in graph.local:
        print(f"  {module}:{line} -> {target}")
    print(f"upward imports between the packages: {len(graph.upward())} {sorted(graph.upward())}")
    print(f"largest import cycle: {len(graph.cycles()[0]) if graph.cycles() else 0} modules "
          f"(without the seam: {max(map(len, graph.cycles(ignore=[seam])), default=0)})")
