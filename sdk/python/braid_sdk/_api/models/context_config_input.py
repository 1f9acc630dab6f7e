from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.agent_role import AgentRole
from ..models.mode import Mode
from ..models.sandbox_mode import SandboxMode
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.approval_policy_auto_all import ApprovalPolicyAutoAll
    from ..models.approval_policy_limited_auto import ApprovalPolicyLimitedAuto
    from ..models.approval_policy_manual import ApprovalPolicyManual
    from ..models.approval_policy_white_list import ApprovalPolicyWhiteList
    from ..models.command_rule import CommandRule
    from ..models.optimization_config_input import OptimizationConfigInput


T = TypeVar("T", bound="ContextConfigInput")


@_attrs_define
class ContextConfigInput:
    """A context's configuration.

    Attributes:
        agent_role (AgentRole | Unset): The agent's role, which bounds the tools it may use in any mode.
            - `planner`: Reads only.
            - `actor`: May also write files and run commands.
        approval_policy (ApprovalPolicyAutoAll | ApprovalPolicyLimitedAuto | ApprovalPolicyManual |
            ApprovalPolicyWhiteList | Unset): Which tool calls run without asking a person.
        approved_tools (list[str] | Unset): Tools the person approved "for this session": they run without asking until
            this list is
            changed.
        command_rules (list[CommandRule] | Unset): Commands that run without asking, under every approval policy.
        context_window (int | None | Unset): Overrides the model table's context window, in tokens.
        disabled_mcp_servers (list[str] | Unset): MCP servers switched off in this context, by their configured name:
            none of their tools
            is offered to the model, and a call to one gets an error result.
        disabled_mcp_tools (list[str] | Unset): Single MCP tools switched off in this context, by the name the model
            calls them
            (`mcp__<server>__<tool>`): not offered, and a call gets an error result.
        llm_timeout_secs (int | Unset): Limit for one model call (connecting, retries and the whole answer), in seconds;
            a call
            that takes longer is stopped and the turn fails, recoverably. Apart from the tools' limit. Default: 300.
        max_output_tokens (int | None | Unset): The most tokens one answer of the model may have, sent with every
            request so a model
            that loops stops (and a paid API stops charging); `optimization.reserve_output_tokens`
            when absent.
        mode (Mode | Unset): Plan or act: what the agent is allowed to do right now.
            - `plan`: Read-only tools and planning instructions: the agent proposes, the person decides.
            - `act`: Every tool the role allows.
        model (str | Unset): The model to use; empty means the server's default model. Default: ''.
        ocr_language (None | str | Unset): The language OCR reads this context's images in: Tesseract's codes, joined by
            `+`
            (`eng`, `deu+eng`). When absent each image's language is detected among those installed.
        optimization (OptimizationConfigInput | Unset): Optimization settings.
        sandbox (None | SandboxMode | Unset): The sandbox commands run in; the server's default (`--sandbox`) when
            absent.
        system_prompt (None | str | Unset): The base system prompt; a branch may override it.
        tool_timeout_secs (int | Unset): Limit for one iteration of the tool loop, in seconds. Default: 30.
        workspace (None | str | Unset): Root for file references and tools; without it file access is refused.
    """

    agent_role: AgentRole | Unset = UNSET
    approval_policy: (
        ApprovalPolicyAutoAll
        | ApprovalPolicyLimitedAuto
        | ApprovalPolicyManual
        | ApprovalPolicyWhiteList
        | Unset
    ) = UNSET
    approved_tools: list[str] | Unset = UNSET
    command_rules: list[CommandRule] | Unset = UNSET
    context_window: int | None | Unset = UNSET
    disabled_mcp_servers: list[str] | Unset = UNSET
    disabled_mcp_tools: list[str] | Unset = UNSET
    llm_timeout_secs: int | Unset = 300
    max_output_tokens: int | None | Unset = UNSET
    mode: Mode | Unset = UNSET
    model: str | Unset = ""
    ocr_language: None | str | Unset = UNSET
    optimization: OptimizationConfigInput | Unset = UNSET
    sandbox: None | SandboxMode | Unset = UNSET
    system_prompt: None | str | Unset = UNSET
    tool_timeout_secs: int | Unset = 30
    workspace: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.approval_policy_limited_auto import ApprovalPolicyLimitedAuto
        from ..models.approval_policy_manual import ApprovalPolicyManual
        from ..models.approval_policy_white_list import ApprovalPolicyWhiteList

        agent_role: str | Unset = UNSET
        if not isinstance(self.agent_role, Unset):
            agent_role = self.agent_role.value

        approval_policy: dict[str, Any] | Unset
        if isinstance(self.approval_policy, Unset):
            approval_policy = UNSET
        elif (
            isinstance(self.approval_policy, ApprovalPolicyManual)
            or isinstance(self.approval_policy, ApprovalPolicyWhiteList)
            or isinstance(self.approval_policy, ApprovalPolicyLimitedAuto)
        ):
            approval_policy = self.approval_policy.to_dict()
        else:
            approval_policy = self.approval_policy.to_dict()

        approved_tools: list[str] | Unset = UNSET
        if not isinstance(self.approved_tools, Unset):
            approved_tools = self.approved_tools

        command_rules: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.command_rules, Unset):
            command_rules = []
            for command_rules_item_data in self.command_rules:
                command_rules_item = command_rules_item_data.to_dict()
                command_rules.append(command_rules_item)

        context_window: int | None | Unset
        if isinstance(self.context_window, Unset):
            context_window = UNSET
        else:
            context_window = self.context_window

        disabled_mcp_servers: list[str] | Unset = UNSET
        if not isinstance(self.disabled_mcp_servers, Unset):
            disabled_mcp_servers = self.disabled_mcp_servers

        disabled_mcp_tools: list[str] | Unset = UNSET
        if not isinstance(self.disabled_mcp_tools, Unset):
            disabled_mcp_tools = self.disabled_mcp_tools

        llm_timeout_secs = self.llm_timeout_secs

        max_output_tokens: int | None | Unset
        if isinstance(self.max_output_tokens, Unset):
            max_output_tokens = UNSET
        else:
            max_output_tokens = self.max_output_tokens

        mode: str | Unset = UNSET
        if not isinstance(self.mode, Unset):
            mode = self.mode.value

        model = self.model

        ocr_language: None | str | Unset
        if isinstance(self.ocr_language, Unset):
            ocr_language = UNSET
        else:
            ocr_language = self.ocr_language

        optimization: dict[str, Any] | Unset = UNSET
        if not isinstance(self.optimization, Unset):
            optimization = self.optimization.to_dict()

        sandbox: None | str | Unset
        if isinstance(self.sandbox, Unset):
            sandbox = UNSET
        elif isinstance(self.sandbox, SandboxMode):
            sandbox = self.sandbox.value
        else:
            sandbox = self.sandbox

        system_prompt: None | str | Unset
        if isinstance(self.system_prompt, Unset):
            system_prompt = UNSET
        else:
            system_prompt = self.system_prompt

        tool_timeout_secs = self.tool_timeout_secs

        workspace: None | str | Unset
        if isinstance(self.workspace, Unset):
            workspace = UNSET
        else:
            workspace = self.workspace

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if agent_role is not UNSET:
            field_dict["agent_role"] = agent_role
        if approval_policy is not UNSET:
            field_dict["approval_policy"] = approval_policy
        if approved_tools is not UNSET:
            field_dict["approved_tools"] = approved_tools
        if command_rules is not UNSET:
            field_dict["command_rules"] = command_rules
        if context_window is not UNSET:
            field_dict["context_window"] = context_window
        if disabled_mcp_servers is not UNSET:
            field_dict["disabled_mcp_servers"] = disabled_mcp_servers
        if disabled_mcp_tools is not UNSET:
            field_dict["disabled_mcp_tools"] = disabled_mcp_tools
        if llm_timeout_secs is not UNSET:
            field_dict["llm_timeout_secs"] = llm_timeout_secs
        if max_output_tokens is not UNSET:
            field_dict["max_output_tokens"] = max_output_tokens
        if mode is not UNSET:
            field_dict["mode"] = mode
        if model is not UNSET:
            field_dict["model"] = model
        if ocr_language is not UNSET:
            field_dict["ocr_language"] = ocr_language
        if optimization is not UNSET:
            field_dict["optimization"] = optimization
        if sandbox is not UNSET:
            field_dict["sandbox"] = sandbox
        if system_prompt is not UNSET:
            field_dict["system_prompt"] = system_prompt
        if tool_timeout_secs is not UNSET:
            field_dict["tool_timeout_secs"] = tool_timeout_secs
        if workspace is not UNSET:
            field_dict["workspace"] = workspace

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.approval_policy_auto_all import ApprovalPolicyAutoAll
        from ..models.approval_policy_limited_auto import ApprovalPolicyLimitedAuto
        from ..models.approval_policy_manual import ApprovalPolicyManual
        from ..models.approval_policy_white_list import ApprovalPolicyWhiteList
        from ..models.command_rule import CommandRule
        from ..models.optimization_config_input import OptimizationConfigInput

        d = dict(src_dict)
        _agent_role = d.pop("agent_role", UNSET)
        agent_role: AgentRole | Unset
        if isinstance(_agent_role, Unset):
            agent_role = UNSET
        else:
            agent_role = AgentRole(_agent_role)

        def _parse_approval_policy(
            data: object,
        ) -> (
            ApprovalPolicyAutoAll
            | ApprovalPolicyLimitedAuto
            | ApprovalPolicyManual
            | ApprovalPolicyWhiteList
            | Unset
        ):
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_approval_policy_type_0 = (
                    ApprovalPolicyManual.from_dict(data)
                )

                return componentsschemas_approval_policy_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_approval_policy_type_1 = (
                    ApprovalPolicyWhiteList.from_dict(data)
                )

                return componentsschemas_approval_policy_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_approval_policy_type_2 = (
                    ApprovalPolicyLimitedAuto.from_dict(data)
                )

                return componentsschemas_approval_policy_type_2
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            componentsschemas_approval_policy_type_3 = ApprovalPolicyAutoAll.from_dict(
                data
            )

            return componentsschemas_approval_policy_type_3

        approval_policy = _parse_approval_policy(d.pop("approval_policy", UNSET))

        approved_tools = cast(list[str], d.pop("approved_tools", UNSET))

        _command_rules = d.pop("command_rules", UNSET)
        command_rules: list[CommandRule] | Unset = UNSET
        if _command_rules is not UNSET:
            command_rules = []
            for command_rules_item_data in _command_rules:
                command_rules_item = CommandRule.from_dict(command_rules_item_data)

                command_rules.append(command_rules_item)

        def _parse_context_window(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        context_window = _parse_context_window(d.pop("context_window", UNSET))

        disabled_mcp_servers = cast(list[str], d.pop("disabled_mcp_servers", UNSET))

        disabled_mcp_tools = cast(list[str], d.pop("disabled_mcp_tools", UNSET))

        llm_timeout_secs = d.pop("llm_timeout_secs", UNSET)

        def _parse_max_output_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_output_tokens = _parse_max_output_tokens(d.pop("max_output_tokens", UNSET))

        _mode = d.pop("mode", UNSET)
        mode: Mode | Unset
        if isinstance(_mode, Unset):
            mode = UNSET
        else:
            mode = Mode(_mode)

        model = d.pop("model", UNSET)

        def _parse_ocr_language(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        ocr_language = _parse_ocr_language(d.pop("ocr_language", UNSET))

        _optimization = d.pop("optimization", UNSET)
        optimization: OptimizationConfigInput | Unset
        if isinstance(_optimization, Unset):
            optimization = UNSET
        else:
            optimization = OptimizationConfigInput.from_dict(_optimization)

        def _parse_sandbox(data: object) -> None | SandboxMode | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                sandbox_type_0 = SandboxMode(data)

                return sandbox_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SandboxMode | Unset, data)

        sandbox = _parse_sandbox(d.pop("sandbox", UNSET))

        def _parse_system_prompt(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        system_prompt = _parse_system_prompt(d.pop("system_prompt", UNSET))

        tool_timeout_secs = d.pop("tool_timeout_secs", UNSET)

        def _parse_workspace(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        workspace = _parse_workspace(d.pop("workspace", UNSET))

        context_config_input = cls(
            agent_role=agent_role,
            approval_policy=approval_policy,
            approved_tools=approved_tools,
            command_rules=command_rules,
            context_window=context_window,
            disabled_mcp_servers=disabled_mcp_servers,
            disabled_mcp_tools=disabled_mcp_tools,
            llm_timeout_secs=llm_timeout_secs,
            max_output_tokens=max_output_tokens,
            mode=mode,
            model=model,
            ocr_language=ocr_language,
            optimization=optimization,
            sandbox=sandbox,
            system_prompt=system_prompt,
            tool_timeout_secs=tool_timeout_secs,
            workspace=workspace,
        )

        context_config_input.additional_properties = d
        return context_config_input

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
