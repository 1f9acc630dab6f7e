from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.sent_as_elided import SentAsElided
    from ..models.sent_as_summary import SentAsSummary
    from ..models.sent_as_truncated import SentAsTruncated
    from ..models.sent_as_whole import SentAsWhole


T = TypeVar("T", bound="SentMessage")


@_attrs_define
class SentMessage:
    """One message of a request.

    Attributes:
        id (UUID): Identifies one message in a context's pool, across all of its branches.
        sent_as (SentAsElided | SentAsSummary | SentAsTruncated | SentAsWhole): How a stored message went into a
            request.
        tokens (int): Its tokens as sent.
    """

    id: UUID
    sent_as: SentAsElided | SentAsSummary | SentAsTruncated | SentAsWhole
    tokens: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.sent_as_elided import SentAsElided
        from ..models.sent_as_truncated import SentAsTruncated
        from ..models.sent_as_whole import SentAsWhole

        id = str(self.id)

        sent_as: dict[str, Any]
        if (
            isinstance(self.sent_as, SentAsWhole)
            or isinstance(self.sent_as, SentAsTruncated)
            or isinstance(self.sent_as, SentAsElided)
        ):
            sent_as = self.sent_as.to_dict()
        else:
            sent_as = self.sent_as.to_dict()

        tokens = self.tokens

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "sent_as": sent_as,
                "tokens": tokens,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.sent_as_elided import SentAsElided
        from ..models.sent_as_summary import SentAsSummary
        from ..models.sent_as_truncated import SentAsTruncated
        from ..models.sent_as_whole import SentAsWhole

        d = dict(src_dict)
        id = UUID(d.pop("id"))

        def _parse_sent_as(
            data: object,
        ) -> SentAsElided | SentAsSummary | SentAsTruncated | SentAsWhole:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_sent_as_type_0 = SentAsWhole.from_dict(data)

                return componentsschemas_sent_as_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_sent_as_type_1 = SentAsTruncated.from_dict(data)

                return componentsschemas_sent_as_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_sent_as_type_2 = SentAsElided.from_dict(data)

                return componentsschemas_sent_as_type_2
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            componentsschemas_sent_as_type_3 = SentAsSummary.from_dict(data)

            return componentsschemas_sent_as_type_3

        sent_as = _parse_sent_as(d.pop("sent_as"))

        tokens = d.pop("tokens")

        sent_message = cls(
            id=id,
            sent_as=sent_as,
            tokens=tokens,
        )

        sent_message.additional_properties = d
        return sent_message

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
