from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.dependency_scope import DependencyScope
from ..types import UNSET, Unset

T = TypeVar("T", bound="DependencyEdge")


@_attrs_define
class DependencyEdge:
    """An edge of a dependency graph.

    Attributes:
        from_ (str): The depending package's id.
        to (str): The depended-on package's id.
        scope (DependencyScope | Unset): What a dependency is for.
            - `normal`: Needed at run time.
            - `dev`: Needed for development and tests only.
            - `build`: Needed to build (Cargo build-dependencies).
            - `optional`: Optional or peer.
    """

    from_: str
    to: str
    scope: DependencyScope | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from_ = self.from_

        to = self.to

        scope: str | Unset = UNSET
        if not isinstance(self.scope, Unset):
            scope = self.scope.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "from": from_,
                "to": to,
            }
        )
        if scope is not UNSET:
            field_dict["scope"] = scope

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        from_ = d.pop("from")

        to = d.pop("to")

        _scope = d.pop("scope", UNSET)
        scope: DependencyScope | Unset
        if isinstance(_scope, Unset):
            scope = UNSET
        else:
            scope = DependencyScope(_scope)

        dependency_edge = cls(
            from_=from_,
            to=to,
            scope=scope,
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
