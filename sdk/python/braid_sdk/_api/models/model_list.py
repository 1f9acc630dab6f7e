from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.model_capabilities_view import ModelCapabilitiesView


T = TypeVar("T", bound="ModelList")


@_attrs_define
class ModelList:
    """`GET /v1/models`: the models the model server offers, for the model picker, with what each
    can do.

        Attributes:
            models (list[ModelCapabilitiesView]): The models the server lists (`/v1/models`), in its order, each with its
                window, vision
                and tool calling and where each figure came from.
            default_model (None | str | Unset): The model a context that names none uses (`BRAID_MODEL`); absent when none
                is set.
            list_error (None | str | Unset): Why the server's list could not be read, when it could not: the picker then
                offers the
                default model and a name typed in.
    """

    models: list[ModelCapabilitiesView]
    default_model: None | str | Unset = UNSET
    list_error: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        models = []
        for models_item_data in self.models:
            models_item = models_item_data.to_dict()
            models.append(models_item)

        default_model: None | str | Unset
        if isinstance(self.default_model, Unset):
            default_model = UNSET
        else:
            default_model = self.default_model

        list_error: None | str | Unset
        if isinstance(self.list_error, Unset):
            list_error = UNSET
        else:
            list_error = self.list_error

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "models": models,
            }
        )
        if default_model is not UNSET:
            field_dict["default_model"] = default_model
        if list_error is not UNSET:
            field_dict["list_error"] = list_error

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.model_capabilities_view import ModelCapabilitiesView

        d = dict(src_dict)
        models = []
        _models = d.pop("models")
        for models_item_data in _models:
            models_item = ModelCapabilitiesView.from_dict(models_item_data)

            models.append(models_item)

        def _parse_default_model(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        default_model = _parse_default_model(d.pop("default_model", UNSET))

        def _parse_list_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        list_error = _parse_list_error(d.pop("list_error", UNSET))

        model_list = cls(
            models=models,
            default_model=default_model,
            list_error=list_error,
        )

        model_list.additional_properties = d
        return model_list

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
