from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.dependency_relation import DependencyRelation
from ..models.ecosystem import Ecosystem
from ..types import UNSET, Unset

T = TypeVar("T", bound="DependencyNode")


@_attrs_define
class DependencyNode:
    """One package in a dependency graph.

    Attributes:
        ecosystem (Ecosystem): A package ecosystem.
            - `cargo`: Rust: Cargo.toml and Cargo.lock.
            - `npm`: JavaScript: package.json and package-lock.json.
            - `python`: Python: pyproject.toml and requirements.txt.
        id (str): Unique within the graph, e.g. `cargo:serde@1.0.210`.
        name (str): The package name.
        relation (DependencyRelation): How a package relates to the project.
            - `root`: A package of the project itself (a workspace member).
            - `direct`: Named in a manifest of the project.
            - `transitive`: Needed only through other dependencies.
        version (None | str | Unset): The resolved version, when a lock file gave one.
    """

    ecosystem: Ecosystem
    id: str
    name: str
    relation: DependencyRelation
    version: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        ecosystem = self.ecosystem.value

        id = self.id

        name = self.name

        relation = self.relation.value

        version: None | str | Unset
        if isinstance(self.version, Unset):
            version = UNSET
        else:
            version = self.version

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "ecosystem": ecosystem,
                "id": id,
                "name": name,
                "relation": relation,
            }
        )
        if version is not UNSET:
            field_dict["version"] = version

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        ecosystem = Ecosystem(d.pop("ecosystem"))

        id = d.pop("id")

        name = d.pop("name")

        relation = DependencyRelation(d.pop("relation"))

        def _parse_version(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        version = _parse_version(d.pop("version", UNSET))

        dependency_node = cls(
            ecosystem=ecosystem,
            id=id,
            name=name,
            relation=relation,
            version=version,
        )

        dependency_node.additional_properties = d
        return dependency_node

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
