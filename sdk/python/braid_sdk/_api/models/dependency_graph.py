from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.dependency_edge import DependencyEdge
    from ..models.dependency_node import DependencyNode


T = TypeVar("T", bound="DependencyGraph")


@_attrs_define
class DependencyGraph:
    """Packages and the edges between them.

    Attributes:
        edges (list[DependencyEdge]): `from` depends on `to`.
        packages (list[DependencyNode]): Every package: the project's own, its direct and its transitive dependencies.
        sources (list[str]): The manifests and lock files that were read, relative to the root.
    """

    edges: list[DependencyEdge]
    packages: list[DependencyNode]
    sources: list[str]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        edges = []
        for edges_item_data in self.edges:
            edges_item = edges_item_data.to_dict()
            edges.append(edges_item)

        packages = []
        for packages_item_data in self.packages:
            packages_item = packages_item_data.to_dict()
            packages.append(packages_item)

        sources = self.sources

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "edges": edges,
                "packages": packages,
                "sources": sources,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.dependency_edge import DependencyEdge
        from ..models.dependency_node import DependencyNode

        d = dict(src_dict)
        edges = []
        _edges = d.pop("edges")
        for edges_item_data in _edges:
            edges_item = DependencyEdge.from_dict(edges_item_data)

            edges.append(edges_item)

        packages = []
        _packages = d.pop("packages")
        for packages_item_data in _packages:
            packages_item = DependencyNode.from_dict(packages_item_data)

            packages.append(packages_item)

        sources = cast(list[str], d.pop("sources"))

        dependency_graph = cls(
            edges=edges,
            packages=packages,
            sources=sources,
        )

        dependency_graph.additional_properties = d
        return dependency_graph

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
