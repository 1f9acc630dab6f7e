from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.dependency_scope import DependencyScope

T = TypeVar("T", bound="DependencyEdge")


@_attrs_define
class DependencyEdge:
    """An edge of a dependency graph.

    Attributes:
        from_ (str): The depending package's id.
        scope (DependencyScope): What a dependency is for.
            - `normal`: Needed at run time.
            - `dev`: Needed for development and tests only.
            - `build`: Needed to build (Cargo build-dependencies).
            - `optional`: Optional or peer.
        to (str): The depended-on package's id.
    """

    from_: str
    scope: DependencyScope
    to: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from_ = self.from_

        scope = self.scope.value

        to = self.to

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "from": from_,
                "scope": scope,
                "to": to,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        from_ = d.pop("from")

        scope = DependencyScope(d.pop("scope"))

        to = d.pop("to")

        dependency_edge = cls(
            from_=from_,
            scope=scope,
            to=to,
        )

        dependency_edge.additional_properties = d
        return dependency_edge

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
