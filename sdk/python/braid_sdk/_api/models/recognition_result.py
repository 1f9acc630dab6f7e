from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.recognition_method import RecognitionMethod
from ..types import UNSET, Unset

T = TypeVar("T", bound="RecognitionResult")


@_attrs_define
class RecognitionResult:
    """What recognition found.

    Attributes:
        method (RecognitionMethod): The recognition method that actually ran.
            - `vision`: A vision model looked at it.
            - `ocr`: OCR read it.
        recognized_at (datetime.datetime): When recognition finished. Default:
            datetime.datetime.fromisoformat('1970-01-01T00:00:00Z').
        confidence (float | None | Unset): OCR confidence from 0 to 100, when known.
        language (None | str | Unset): Detected language of the text (ISO 639 code), when known.
        notice (None | str | Unset): A note for the person, e.g. that vision was unavailable and OCR was used instead.
        recognized_text (None | str | Unset): Text found in the image.
        vision_analysis (None | str | Unset): The vision model's description (vision only).
    """

    method: RecognitionMethod
    recognized_at: datetime.datetime = datetime.datetime.fromisoformat(
        "1970-01-01T00:00:00Z"
    )
    confidence: float | None | Unset = UNSET
    language: None | str | Unset = UNSET
    notice: None | str | Unset = UNSET
    recognized_text: None | str | Unset = UNSET
    vision_analysis: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        method = self.method.value

        recognized_at = self.recognized_at.isoformat()

        confidence: float | None | Unset
        if isinstance(self.confidence, Unset):
            confidence = UNSET
        else:
            confidence = self.confidence

        language: None | str | Unset
        if isinstance(self.language, Unset):
            language = UNSET
        else:
            language = self.language

        notice: None | str | Unset
        if isinstance(self.notice, Unset):
            notice = UNSET
        else:
            notice = self.notice

        recognized_text: None | str | Unset
        if isinstance(self.recognized_text, Unset):
            recognized_text = UNSET
        else:
            recognized_text = self.recognized_text

        vision_analysis: None | str | Unset
        if isinstance(self.vision_analysis, Unset):
            vision_analysis = UNSET
        else:
            vision_analysis = self.vision_analysis

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "method": method,
                "recognized_at": recognized_at,
            }
        )
        if confidence is not UNSET:
            field_dict["confidence"] = confidence
        if language is not UNSET:
            field_dict["language"] = language
        if notice is not UNSET:
            field_dict["notice"] = notice
        if recognized_text is not UNSET:
            field_dict["recognized_text"] = recognized_text
        if vision_analysis is not UNSET:
            field_dict["vision_analysis"] = vision_analysis

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        method = RecognitionMethod(d.pop("method"))

        recognized_at = datetime.datetime.fromisoformat(d.pop("recognized_at"))

        def _parse_confidence(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        confidence = _parse_confidence(d.pop("confidence", UNSET))

        def _parse_language(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        language = _parse_language(d.pop("language", UNSET))

        def _parse_notice(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        notice = _parse_notice(d.pop("notice", UNSET))

        def _parse_recognized_text(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        recognized_text = _parse_recognized_text(d.pop("recognized_text", UNSET))

        def _parse_vision_analysis(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        vision_analysis = _parse_vision_analysis(d.pop("vision_analysis", UNSET))

        recognition_result = cls(
            method=method,
            recognized_at=recognized_at,
            confidence=confidence,
            language=language,
            notice=notice,
            recognized_text=recognized_text,
            vision_analysis=vision_analysis,
        )

        recognition_result.additional_properties = d
        return recognition_result

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
