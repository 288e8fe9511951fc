from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.extra_args_mode import ExtraArgsMode, check_extra_args_mode
from ..models.handoff import Handoff, check_handoff
from ..models.on_dirty import OnDirty, check_on_dirty
from ..models.session_busy import SessionBusy, check_session_busy
from ..models.tier import Tier, check_tier
from ..models.workspace_mode import WorkspaceMode, check_workspace_mode
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.run_request_env import RunRequestEnv
    from ..models.run_request_labels import RunRequestLabels
    from ..models.run_request_task_type_0 import RunRequestTaskType0


T = TypeVar("T", bound="RunRequest")


@_attrs_define
class RunRequest:
    """A run asked for as data. `None` or an empty list leaves the choice to
    the config and the defaults, as an absent flag does.

        Attributes:
            add_dirs (list[str] | Unset): `--add-dir` folders (absolute).
            agent_file (None | str | Unset): `--agent-file` (absolute).
            agents (list[str] | Unset): Agents of the config tried in order (`--agent`).
            binary (None | str | Unset): `--binary` (absolute).
            callback_url (None | str | Unset): An http(s) URL that gets this run's `run.ended` webhook, signed
                with the config's `webhooks:` secret (docs/operating/webhooks.md). Example: https://hooks.example.com/run-ended.
            chain (None | str | Unset): A chain of the config (`--chain`).
            context (list[str] | Unset): `--context` files (absolute).
            context_dir (None | str | Unset): `--context-dir` (absolute).
            context_max (int | None | Unset): `--context-max` bytes.
            cwd (None | str | Unset): `--cwd` (absolute; default: the server's working directory).
            debug_prompt (bool | Unset): `--debug-prompt`: save the prompt sent, redacted, as `prompt.txt` in
                the run folder. Default: False.
            env (RunRequestEnv | Unset): `--env KEY=VALUE` pairs.
            extend_on_activity (None | str | Unset): `--extend-on-activity`, e.g. `"5m"`.
            extra_args (list[str] | Unset): `--extra-arg` values.
            extra_args_mode (ExtraArgsMode | None | Unset):
            file_name (None | str | Unset): The name of the file the task came from (a watched note's name): the
                prompt sends the task under `--- task: NAME ---` (as the task input's
                `file_name`; give it in one of the two places).
            gateway (bool | None | Unset): `--gateway` (`true`) or `--no-gateway` (`false`): a model gateway in
                front of the run's CLIs, or none; absent: the server's config says.
            handoff (Handoff | None | Unset):
            idempotency_key (None | str | Unset): A repeated key returns the run the first request created.
            idle_timeout (None | str | Unset): `--idle-timeout`.
            ignore_quota (bool | Unset): `--ignore-quota`. Default: False.
            input_ (Any | Unset): `--input JSON`: the skill's input (a string is passed as its text).
            labels (RunRequestLabels | Unset): `--label key=value` pairs: stored with the job and its run, in the
                envelope, and what `?label=` filters and cancels by label match
                (see `agentgate_protocol::check_labels` for the bounds).
            max_context_tokens (int | None | Unset): `--max-context-tokens`: with `session`, when the session's last
                turn passed this context length, this turn starts a new native
                session under the same name (over the agent's `max_context_tokens`).
            max_cost_usd (float | None | Unset): `--max-cost`: the most this run may spend, in USD; past it the CLI
                is stopped and the run ends with `budget`.
            max_input_tokens (int | None | Unset): `--max-input-tokens`: input tokens over the run's calls, at most.
            max_model_calls (int | None | Unset): `--max-model-calls`: the run's model calls at most (needs a gateway).
            max_model_time (None | str | Unset): `--max-model-time`: wall time of model calls, summed, at most (`10m`).
            max_output_tokens (int | None | Unset): `--max-output-tokens`: output tokens over the run's calls, at most.
            max_provider_retries (int | None | Unset): `--max-provider-retries`.
            max_timeout (None | str | Unset): `--max-timeout`, e.g. `"30m"`.
            max_tokens (int | None | Unset): `--max-tokens`: the most tokens (input + output) this run may spend.
            max_turns (int | None | Unset): `--max-turns` (Claude Code).
            model (None | str | Unset): `--model`.
            no_unattended_instruction (bool | Unset): `--no-unattended-instruction`. Default: False.
            not_before (datetime.datetime | None | Unset): Not started before this time (RFC 3339).
            on_dirty (None | OnDirty | Unset):
            output_schema (None | str | Unset): `--output-schema` (absolute).
            permission_mode (None | str | Unset): `default`, `plan`, `acceptEdits` or `bypass` (`--permission-mode`).
            persona (None | str | Unset): `--persona`.
            priority (int | Unset): Higher runs first (-1000 to 1000, default 0). Default: 0.
            prompt (None | str | Unset): The prompt (exactly one of `prompt` and `task`).
            prompt_max_bytes (int | None | Unset): `--prompt-max-bytes`.
            prompt_warn_bytes (int | None | Unset): `--prompt-warn-bytes`.
            providers (list[str] | Unset): Providers tried in order (`--provider claude,codex`).
            reasoning_effort (None | str | Unset): `--reasoning-effort`: `none`, `minimal`, `low`, `medium`, `high`,
                `xhigh` or `max`, for the CLIs with a knob for it.
            record_model_calls (bool | Unset): `--record-model-calls`: keep the model calls in the run's folder. Default:
                False.
            resume (None | str | Unset): `--resume`.
            retry_on (list[str] | Unset): Error types that hand the task on (`--retry-on`).
            rotate_handoff (None | str | Unset): `--rotate-handoff`: `none`, `summary` or `prompt` (with
                `rotate_prompt`): how a rotated session is seeded.
            rotate_prompt (None | str | Unset): `--rotate-prompt`: the text a rotated session's first prompt starts
                with (`rotate_handoff: prompt`).
            sandbox (None | str | Unset): `--sandbox`: `off`, `workspace`, `strict` or `container`, how the
                run's CLIs are confined (over the agent's and the server's config);
                absent: the config says. A level below the config's
                `sandbox.require` is refused (422, field `sandbox`). Example: workspace.
            session (None | str | Unset): `--session`.
            session_busy (None | SessionBusy | Unset):
            skill (None | str | Unset): `--skill NAME`: the skill each provider invokes its own way (the
                prompt may then be left out).
            skip_context_file (bool | Unset): `--skip-context-file`. Default: False.
            system (None | str | Unset): `--system`.
            system_file (None | str | Unset): `--system-file` (absolute).
            task (None | RunRequestTaskType0 | Unset): A task input object: `{"prompt", "context", "persona", "files"}`, as
                `agentgate run` reads from stdin.
            thinking_budget (int | None | Unset): `--thinking-budget`: tokens of thinking, for the CLIs with a knob
                for it.
            tier (None | Tier | Unset):
            timeout (None | str | Unset): `--timeout`, e.g. `"90s"`, `"10m"`.
            timeout_warn (None | str | Unset): `--timeout-warn`: when to warn before `timeout`, e.g. `"80%,95%"`,
                `"2m"`, `"off"`.
            tools (list[str] | Unset): Registry tools the agents may call, through agentgate's MCP server
                (`--tools`); the server's registry must have them.
            warm (bool | Unset): `--warm` (needs `session`): keep the CLI running for the session's
                next turn (a server's turns go to its own warm processes). Default: False.
            warm_idle (None | str | Unset): `--warm-idle` (needs `warm`): end the warm process after this long
                idle, e.g. `"10m"`.
            workspace (None | Unset | WorkspaceMode):
    """

    add_dirs: list[str] | Unset = UNSET
    agent_file: None | str | Unset = UNSET
    agents: list[str] | Unset = UNSET
    binary: None | str | Unset = UNSET
    callback_url: None | str | Unset = UNSET
    chain: None | str | Unset = UNSET
    context: list[str] | Unset = UNSET
    context_dir: None | str | Unset = UNSET
    context_max: int | None | Unset = UNSET
    cwd: None | str | Unset = UNSET
    debug_prompt: bool | Unset = False
    env: RunRequestEnv | Unset = UNSET
    extend_on_activity: None | str | Unset = UNSET
    extra_args: list[str] | Unset = UNSET
    extra_args_mode: ExtraArgsMode | None | Unset = UNSET
    file_name: None | str | Unset = UNSET
    gateway: bool | None | Unset = UNSET
    handoff: Handoff | None | Unset = UNSET
    idempotency_key: None | str | Unset = UNSET
    idle_timeout: None | str | Unset = UNSET
    ignore_quota: bool | Unset = False
    input_: Any | Unset = UNSET
    labels: RunRequestLabels | Unset = UNSET
    max_context_tokens: int | None | Unset = UNSET
    max_cost_usd: float | None | Unset = UNSET
    max_input_tokens: int | None | Unset = UNSET
    max_model_calls: int | None | Unset = UNSET
    max_model_time: None | str | Unset = UNSET
    max_output_tokens: int | None | Unset = UNSET
    max_provider_retries: int | None | Unset = UNSET
    max_timeout: None | str | Unset = UNSET
    max_tokens: int | None | Unset = UNSET
    max_turns: int | None | Unset = UNSET
    model: None | str | Unset = UNSET
    no_unattended_instruction: bool | Unset = False
    not_before: datetime.datetime | None | Unset = UNSET
    on_dirty: None | OnDirty | Unset = UNSET
    output_schema: None | str | Unset = UNSET
    permission_mode: None | str | Unset = UNSET
    persona: None | str | Unset = UNSET
    priority: int | Unset = 0
    prompt: None | str | Unset = UNSET
    prompt_max_bytes: int | None | Unset = UNSET
    prompt_warn_bytes: int | None | Unset = UNSET
    providers: list[str] | Unset = UNSET
    reasoning_effort: None | str | Unset = UNSET
    record_model_calls: bool | Unset = False
    resume: None | str | Unset = UNSET
    retry_on: list[str] | Unset = UNSET
    rotate_handoff: None | str | Unset = UNSET
    rotate_prompt: None | str | Unset = UNSET
    sandbox: None | str | Unset = UNSET
    session: None | str | Unset = UNSET
    session_busy: None | SessionBusy | Unset = UNSET
    skill: None | str | Unset = UNSET
    skip_context_file: bool | Unset = False
    system: None | str | Unset = UNSET
    system_file: None | str | Unset = UNSET
    task: None | RunRequestTaskType0 | Unset = UNSET
    thinking_budget: int | None | Unset = UNSET
    tier: None | Tier | Unset = UNSET
    timeout: None | str | Unset = UNSET
    timeout_warn: None | str | Unset = UNSET
    tools: list[str] | Unset = UNSET
    warm: bool | Unset = False
    warm_idle: None | str | Unset = UNSET
    workspace: None | Unset | WorkspaceMode = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.run_request_task_type_0 import RunRequestTaskType0

        add_dirs: list[str] | Unset = UNSET
        if not isinstance(self.add_dirs, Unset):
            add_dirs = self.add_dirs

        agent_file: None | str | Unset
        if isinstance(self.agent_file, Unset):
            agent_file = UNSET
        else:
            agent_file = self.agent_file

        agents: list[str] | Unset = UNSET
        if not isinstance(self.agents, Unset):
            agents = self.agents

        binary: None | str | Unset
        if isinstance(self.binary, Unset):
            binary = UNSET
        else:
            binary = self.binary

        callback_url: None | str | Unset
        if isinstance(self.callback_url, Unset):
            callback_url = UNSET
        else:
            callback_url = self.callback_url

        chain: None | str | Unset
        if isinstance(self.chain, Unset):
            chain = UNSET
        else:
            chain = self.chain

        context: list[str] | Unset = UNSET
        if not isinstance(self.context, Unset):
            context = self.context

        context_dir: None | str | Unset
        if isinstance(self.context_dir, Unset):
            context_dir = UNSET
        else:
            context_dir = self.context_dir

        context_max: int | None | Unset
        if isinstance(self.context_max, Unset):
            context_max = UNSET
        else:
            context_max = self.context_max

        cwd: None | str | Unset
        if isinstance(self.cwd, Unset):
            cwd = UNSET
        else:
            cwd = self.cwd

        debug_prompt = self.debug_prompt

        env: dict[str, Any] | Unset = UNSET
        if not isinstance(self.env, Unset):
            env = self.env.to_dict()

        extend_on_activity: None | str | Unset
        if isinstance(self.extend_on_activity, Unset):
            extend_on_activity = UNSET
        else:
            extend_on_activity = self.extend_on_activity

        extra_args: list[str] | Unset = UNSET
        if not isinstance(self.extra_args, Unset):
            extra_args = self.extra_args

        extra_args_mode: None | str | Unset
        if isinstance(self.extra_args_mode, Unset):
            extra_args_mode = UNSET
        elif isinstance(self.extra_args_mode, str):
            extra_args_mode = self.extra_args_mode
        else:
            extra_args_mode = self.extra_args_mode

        file_name: None | str | Unset
        if isinstance(self.file_name, Unset):
            file_name = UNSET
        else:
            file_name = self.file_name

        gateway: bool | None | Unset
        if isinstance(self.gateway, Unset):
            gateway = UNSET
        else:
            gateway = self.gateway

        handoff: None | str | Unset
        if isinstance(self.handoff, Unset):
            handoff = UNSET
        elif isinstance(self.handoff, str):
            handoff = self.handoff
        else:
            handoff = self.handoff

        idempotency_key: None | str | Unset
        if isinstance(self.idempotency_key, Unset):
            idempotency_key = UNSET
        else:
            idempotency_key = self.idempotency_key

        idle_timeout: None | str | Unset
        if isinstance(self.idle_timeout, Unset):
            idle_timeout = UNSET
        else:
            idle_timeout = self.idle_timeout

        ignore_quota = self.ignore_quota

        input_ = self.input_

        labels: dict[str, Any] | Unset = UNSET
        if not isinstance(self.labels, Unset):
            labels = self.labels.to_dict()

        max_context_tokens: int | None | Unset
        if isinstance(self.max_context_tokens, Unset):
            max_context_tokens = UNSET
        else:
            max_context_tokens = self.max_context_tokens

        max_cost_usd: float | None | Unset
        if isinstance(self.max_cost_usd, Unset):
            max_cost_usd = UNSET
        else:
            max_cost_usd = self.max_cost_usd

        max_input_tokens: int | None | Unset
        if isinstance(self.max_input_tokens, Unset):
            max_input_tokens = UNSET
        else:
            max_input_tokens = self.max_input_tokens

        max_model_calls: int | None | Unset
        if isinstance(self.max_model_calls, Unset):
            max_model_calls = UNSET
        else:
            max_model_calls = self.max_model_calls

        max_model_time: None | str | Unset
        if isinstance(self.max_model_time, Unset):
            max_model_time = UNSET
        else:
            max_model_time = self.max_model_time

        max_output_tokens: int | None | Unset
        if isinstance(self.max_output_tokens, Unset):
            max_output_tokens = UNSET
        else:
            max_output_tokens = self.max_output_tokens

        max_provider_retries: int | None | Unset
        if isinstance(self.max_provider_retries, Unset):
            max_provider_retries = UNSET
        else:
            max_provider_retries = self.max_provider_retries

        max_timeout: None | str | Unset
        if isinstance(self.max_timeout, Unset):
            max_timeout = UNSET
        else:
            max_timeout = self.max_timeout

        max_tokens: int | None | Unset
        if isinstance(self.max_tokens, Unset):
            max_tokens = UNSET
        else:
            max_tokens = self.max_tokens

        max_turns: int | None | Unset
        if isinstance(self.max_turns, Unset):
            max_turns = UNSET
        else:
            max_turns = self.max_turns

        model: None | str | Unset
        if isinstance(self.model, Unset):
            model = UNSET
        else:
            model = self.model

        no_unattended_instruction = self.no_unattended_instruction

        not_before: None | str | Unset
        if isinstance(self.not_before, Unset):
            not_before = UNSET
        elif isinstance(self.not_before, datetime.datetime):
            not_before = self.not_before.isoformat()
        else:
            not_before = self.not_before

        on_dirty: None | str | Unset
        if isinstance(self.on_dirty, Unset):
            on_dirty = UNSET
        elif isinstance(self.on_dirty, str):
            on_dirty = self.on_dirty
        else:
            on_dirty = self.on_dirty

        output_schema: None | str | Unset
        if isinstance(self.output_schema, Unset):
            output_schema = UNSET
        else:
            output_schema = self.output_schema

        permission_mode: None | str | Unset
        if isinstance(self.permission_mode, Unset):
            permission_mode = UNSET
        else:
            permission_mode = self.permission_mode

        persona: None | str | Unset
        if isinstance(self.persona, Unset):
            persona = UNSET
        else:
            persona = self.persona

        priority = self.priority

        prompt: None | str | Unset
        if isinstance(self.prompt, Unset):
            prompt = UNSET
        else:
            prompt = self.prompt

        prompt_max_bytes: int | None | Unset
        if isinstance(self.prompt_max_bytes, Unset):
            prompt_max_bytes = UNSET
        else:
            prompt_max_bytes = self.prompt_max_bytes

        prompt_warn_bytes: int | None | Unset
        if isinstance(self.prompt_warn_bytes, Unset):
            prompt_warn_bytes = UNSET
        else:
            prompt_warn_bytes = self.prompt_warn_bytes

        providers: list[str] | Unset = UNSET
        if not isinstance(self.providers, Unset):
            providers = self.providers

        reasoning_effort: None | str | Unset
        if isinstance(self.reasoning_effort, Unset):
            reasoning_effort = UNSET
        else:
            reasoning_effort = self.reasoning_effort

        record_model_calls = self.record_model_calls

        resume: None | str | Unset
        if isinstance(self.resume, Unset):
            resume = UNSET
        else:
            resume = self.resume

        retry_on: list[str] | Unset = UNSET
        if not isinstance(self.retry_on, Unset):
            retry_on = self.retry_on

        rotate_handoff: None | str | Unset
        if isinstance(self.rotate_handoff, Unset):
            rotate_handoff = UNSET
        else:
            rotate_handoff = self.rotate_handoff

        rotate_prompt: None | str | Unset
        if isinstance(self.rotate_prompt, Unset):
            rotate_prompt = UNSET
        else:
            rotate_prompt = self.rotate_prompt

        sandbox: None | str | Unset
        if isinstance(self.sandbox, Unset):
            sandbox = UNSET
        else:
            sandbox = self.sandbox

        session: None | str | Unset
        if isinstance(self.session, Unset):
            session = UNSET
        else:
            session = self.session

        session_busy: None | str | Unset
        if isinstance(self.session_busy, Unset):
            session_busy = UNSET
        elif isinstance(self.session_busy, str):
            session_busy = self.session_busy
        else:
            session_busy = self.session_busy

        skill: None | str | Unset
        if isinstance(self.skill, Unset):
            skill = UNSET
        else:
            skill = self.skill

        skip_context_file = self.skip_context_file

        system: None | str | Unset
        if isinstance(self.system, Unset):
            system = UNSET
        else:
            system = self.system

        system_file: None | str | Unset
        if isinstance(self.system_file, Unset):
            system_file = UNSET
        else:
            system_file = self.system_file

        task: dict[str, Any] | None | Unset
        if isinstance(self.task, Unset):
            task = UNSET
        elif isinstance(self.task, RunRequestTaskType0):
            task = self.task.to_dict()
        else:
            task = self.task

        thinking_budget: int | None | Unset
        if isinstance(self.thinking_budget, Unset):
            thinking_budget = UNSET
        else:
            thinking_budget = self.thinking_budget

        tier: None | str | Unset
        if isinstance(self.tier, Unset):
            tier = UNSET
        elif isinstance(self.tier, str):
            tier = self.tier
        else:
            tier = self.tier

        timeout: None | str | Unset
        if isinstance(self.timeout, Unset):
            timeout = UNSET
        else:
            timeout = self.timeout

        timeout_warn: None | str | Unset
        if isinstance(self.timeout_warn, Unset):
            timeout_warn = UNSET
        else:
            timeout_warn = self.timeout_warn

        tools: list[str] | Unset = UNSET
        if not isinstance(self.tools, Unset):
            tools = self.tools

        warm = self.warm

        warm_idle: None | str | Unset
        if isinstance(self.warm_idle, Unset):
            warm_idle = UNSET
        else:
            warm_idle = self.warm_idle

        workspace: None | str | Unset
        if isinstance(self.workspace, Unset):
            workspace = UNSET
        elif isinstance(self.workspace, str):
            workspace = self.workspace
        else:
            workspace = self.workspace

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if add_dirs is not UNSET:
            field_dict["add_dirs"] = add_dirs
        if agent_file is not UNSET:
            field_dict["agent_file"] = agent_file
        if agents is not UNSET:
            field_dict["agents"] = agents
        if binary is not UNSET:
            field_dict["binary"] = binary
        if callback_url is not UNSET:
            field_dict["callback_url"] = callback_url
        if chain is not UNSET:
            field_dict["chain"] = chain
        if context is not UNSET:
            field_dict["context"] = context
        if context_dir is not UNSET:
            field_dict["context_dir"] = context_dir
        if context_max is not UNSET:
            field_dict["context_max"] = context_max
        if cwd is not UNSET:
            field_dict["cwd"] = cwd
        if debug_prompt is not UNSET:
            field_dict["debug_prompt"] = debug_prompt
        if env is not UNSET:
            field_dict["env"] = env
        if extend_on_activity is not UNSET:
            field_dict["extend_on_activity"] = extend_on_activity
        if extra_args is not UNSET:
            field_dict["extra_args"] = extra_args
        if extra_args_mode is not UNSET:
            field_dict["extra_args_mode"] = extra_args_mode
        if file_name is not UNSET:
            field_dict["file_name"] = file_name
        if gateway is not UNSET:
            field_dict["gateway"] = gateway
        if handoff is not UNSET:
            field_dict["handoff"] = handoff
        if idempotency_key is not UNSET:
            field_dict["idempotency_key"] = idempotency_key
        if idle_timeout is not UNSET:
            field_dict["idle_timeout"] = idle_timeout
        if ignore_quota is not UNSET:
            field_dict["ignore_quota"] = ignore_quota
        if input_ is not UNSET:
            field_dict["input"] = input_
        if labels is not UNSET:
            field_dict["labels"] = labels
        if max_context_tokens is not UNSET:
            field_dict["max_context_tokens"] = max_context_tokens
        if max_cost_usd is not UNSET:
            field_dict["max_cost_usd"] = max_cost_usd
        if max_input_tokens is not UNSET:
            field_dict["max_input_tokens"] = max_input_tokens
        if max_model_calls is not UNSET:
            field_dict["max_model_calls"] = max_model_calls
        if max_model_time is not UNSET:
            field_dict["max_model_time"] = max_model_time
        if max_output_tokens is not UNSET:
            field_dict["max_output_tokens"] = max_output_tokens
        if max_provider_retries is not UNSET:
            field_dict["max_provider_retries"] = max_provider_retries
        if max_timeout is not UNSET:
            field_dict["max_timeout"] = max_timeout
        if max_tokens is not UNSET:
            field_dict["max_tokens"] = max_tokens
        if max_turns is not UNSET:
            field_dict["max_turns"] = max_turns
        if model is not UNSET:
            field_dict["model"] = model
        if no_unattended_instruction is not UNSET:
            field_dict["no_unattended_instruction"] = no_unattended_instruction
        if not_before is not UNSET:
            field_dict["not_before"] = not_before
        if on_dirty is not UNSET:
            field_dict["on_dirty"] = on_dirty
        if output_schema is not UNSET:
            field_dict["output_schema"] = output_schema
        if permission_mode is not UNSET:
            field_dict["permission_mode"] = permission_mode
        if persona is not UNSET:
            field_dict["persona"] = persona
        if priority is not UNSET:
            field_dict["priority"] = priority
        if prompt is not UNSET:
            field_dict["prompt"] = prompt
        if prompt_max_bytes is not UNSET:
            field_dict["prompt_max_bytes"] = prompt_max_bytes
        if prompt_warn_bytes is not UNSET:
            field_dict["prompt_warn_bytes"] = prompt_warn_bytes
        if providers is not UNSET:
            field_dict["providers"] = providers
        if reasoning_effort is not UNSET:
            field_dict["reasoning_effort"] = reasoning_effort
        if record_model_calls is not UNSET:
            field_dict["record_model_calls"] = record_model_calls
        if resume is not UNSET:
            field_dict["resume"] = resume
        if retry_on is not UNSET:
            field_dict["retry_on"] = retry_on
        if rotate_handoff is not UNSET:
            field_dict["rotate_handoff"] = rotate_handoff
        if rotate_prompt is not UNSET:
            field_dict["rotate_prompt"] = rotate_prompt
        if sandbox is not UNSET:
            field_dict["sandbox"] = sandbox
        if session is not UNSET:
            field_dict["session"] = session
        if session_busy is not UNSET:
            field_dict["session_busy"] = session_busy
        if skill is not UNSET:
            field_dict["skill"] = skill
        if skip_context_file is not UNSET:
            field_dict["skip_context_file"] = skip_context_file
        if system is not UNSET:
            field_dict["system"] = system
        if system_file is not UNSET:
            field_dict["system_file"] = system_file
        if task is not UNSET:
            field_dict["task"] = task
        if thinking_budget is not UNSET:
            field_dict["thinking_budget"] = thinking_budget
        if tier is not UNSET:
            field_dict["tier"] = tier
        if timeout is not UNSET:
            field_dict["timeout"] = timeout
        if timeout_warn is not UNSET:
            field_dict["timeout_warn"] = timeout_warn
        if tools is not UNSET:
            field_dict["tools"] = tools
        if warm is not UNSET:
            field_dict["warm"] = warm
        if warm_idle is not UNSET:
            field_dict["warm_idle"] = warm_idle
        if workspace is not UNSET:
            field_dict["workspace"] = workspace

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.run_request_env import RunRequestEnv
        from ..models.run_request_labels import RunRequestLabels
        from ..models.run_request_task_type_0 import RunRequestTaskType0

        d = dict(src_dict)
        add_dirs = cast(list[str], d.pop("add_dirs", UNSET))

        def _parse_agent_file(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        agent_file = _parse_agent_file(d.pop("agent_file", UNSET))

        agents = cast(list[str], d.pop("agents", UNSET))

        def _parse_binary(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        binary = _parse_binary(d.pop("binary", UNSET))

        def _parse_callback_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        callback_url = _parse_callback_url(d.pop("callback_url", UNSET))

        def _parse_chain(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        chain = _parse_chain(d.pop("chain", UNSET))

        context = cast(list[str], d.pop("context", UNSET))

        def _parse_context_dir(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        context_dir = _parse_context_dir(d.pop("context_dir", UNSET))

        def _parse_context_max(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        context_max = _parse_context_max(d.pop("context_max", UNSET))

        def _parse_cwd(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        cwd = _parse_cwd(d.pop("cwd", UNSET))

        debug_prompt = d.pop("debug_prompt", UNSET)

        _env = d.pop("env", UNSET)
        env: RunRequestEnv | Unset
        if isinstance(_env, Unset):
            env = UNSET
        else:
            env = RunRequestEnv.from_dict(_env)

        def _parse_extend_on_activity(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        extend_on_activity = _parse_extend_on_activity(
            d.pop("extend_on_activity", UNSET)
        )

        extra_args = cast(list[str], d.pop("extra_args", UNSET))

        def _parse_extra_args_mode(data: object) -> ExtraArgsMode | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                extra_args_mode_type_0 = check_extra_args_mode(data)

                return extra_args_mode_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ExtraArgsMode | None | Unset, data)

        extra_args_mode = _parse_extra_args_mode(d.pop("extra_args_mode", UNSET))

        def _parse_file_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        file_name = _parse_file_name(d.pop("file_name", UNSET))

        def _parse_gateway(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        gateway = _parse_gateway(d.pop("gateway", UNSET))

        def _parse_handoff(data: object) -> Handoff | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                handoff_type_0 = check_handoff(data)

                return handoff_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Handoff | None | Unset, data)

        handoff = _parse_handoff(d.pop("handoff", UNSET))

        def _parse_idempotency_key(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        idempotency_key = _parse_idempotency_key(d.pop("idempotency_key", UNSET))

        def _parse_idle_timeout(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        idle_timeout = _parse_idle_timeout(d.pop("idle_timeout", UNSET))

        ignore_quota = d.pop("ignore_quota", UNSET)

        input_ = d.pop("input", UNSET)

        _labels = d.pop("labels", UNSET)
        labels: RunRequestLabels | Unset
        if isinstance(_labels, Unset):
            labels = UNSET
        else:
            labels = RunRequestLabels.from_dict(_labels)

        def _parse_max_context_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_context_tokens = _parse_max_context_tokens(
            d.pop("max_context_tokens", UNSET)
        )

        def _parse_max_cost_usd(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        max_cost_usd = _parse_max_cost_usd(d.pop("max_cost_usd", UNSET))

        def _parse_max_input_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_input_tokens = _parse_max_input_tokens(d.pop("max_input_tokens", UNSET))

        def _parse_max_model_calls(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_model_calls = _parse_max_model_calls(d.pop("max_model_calls", UNSET))

        def _parse_max_model_time(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        max_model_time = _parse_max_model_time(d.pop("max_model_time", UNSET))

        def _parse_max_output_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_output_tokens = _parse_max_output_tokens(d.pop("max_output_tokens", UNSET))

        def _parse_max_provider_retries(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_provider_retries = _parse_max_provider_retries(
            d.pop("max_provider_retries", UNSET)
        )

        def _parse_max_timeout(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        max_timeout = _parse_max_timeout(d.pop("max_timeout", UNSET))

        def _parse_max_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_tokens = _parse_max_tokens(d.pop("max_tokens", UNSET))

        def _parse_max_turns(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_turns = _parse_max_turns(d.pop("max_turns", UNSET))

        def _parse_model(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        model = _parse_model(d.pop("model", UNSET))

        no_unattended_instruction = d.pop("no_unattended_instruction", UNSET)

        def _parse_not_before(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                not_before_type_0 = datetime.datetime.fromisoformat(data)

                return not_before_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        not_before = _parse_not_before(d.pop("not_before", UNSET))

        def _parse_on_dirty(data: object) -> None | OnDirty | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                on_dirty_type_0 = check_on_dirty(data)

                return on_dirty_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | OnDirty | Unset, data)

        on_dirty = _parse_on_dirty(d.pop("on_dirty", UNSET))

        def _parse_output_schema(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        output_schema = _parse_output_schema(d.pop("output_schema", UNSET))

        def _parse_permission_mode(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        permission_mode = _parse_permission_mode(d.pop("permission_mode", UNSET))

        def _parse_persona(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        persona = _parse_persona(d.pop("persona", UNSET))

        priority = d.pop("priority", UNSET)

        def _parse_prompt(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        prompt = _parse_prompt(d.pop("prompt", UNSET))

        def _parse_prompt_max_bytes(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        prompt_max_bytes = _parse_prompt_max_bytes(d.pop("prompt_max_bytes", UNSET))

        def _parse_prompt_warn_bytes(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        prompt_warn_bytes = _parse_prompt_warn_bytes(d.pop("prompt_warn_bytes", UNSET))

        providers = cast(list[str], d.pop("providers", UNSET))

        def _parse_reasoning_effort(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reasoning_effort = _parse_reasoning_effort(d.pop("reasoning_effort", UNSET))

        record_model_calls = d.pop("record_model_calls", UNSET)

        def _parse_resume(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        resume = _parse_resume(d.pop("resume", UNSET))

        retry_on = cast(list[str], d.pop("retry_on", UNSET))

        def _parse_rotate_handoff(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        rotate_handoff = _parse_rotate_handoff(d.pop("rotate_handoff", UNSET))

        def _parse_rotate_prompt(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        rotate_prompt = _parse_rotate_prompt(d.pop("rotate_prompt", UNSET))

        def _parse_sandbox(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        sandbox = _parse_sandbox(d.pop("sandbox", UNSET))

        def _parse_session(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        session = _parse_session(d.pop("session", UNSET))

        def _parse_session_busy(data: object) -> None | SessionBusy | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                session_busy_type_0 = check_session_busy(data)

                return session_busy_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SessionBusy | Unset, data)

        session_busy = _parse_session_busy(d.pop("session_busy", UNSET))

        def _parse_skill(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        skill = _parse_skill(d.pop("skill", UNSET))

        skip_context_file = d.pop("skip_context_file", UNSET)

        def _parse_system(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        system = _parse_system(d.pop("system", UNSET))

        def _parse_system_file(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        system_file = _parse_system_file(d.pop("system_file", UNSET))

        def _parse_task(data: object) -> None | RunRequestTaskType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                task_type_0 = RunRequestTaskType0.from_dict(data)

                return task_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RunRequestTaskType0 | Unset, data)

        task = _parse_task(d.pop("task", UNSET))

        def _parse_thinking_budget(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        thinking_budget = _parse_thinking_budget(d.pop("thinking_budget", UNSET))

        def _parse_tier(data: object) -> None | Tier | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                tier_type_0 = check_tier(data)

                return tier_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Tier | Unset, data)

        tier = _parse_tier(d.pop("tier", UNSET))

        def _parse_timeout(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        timeout = _parse_timeout(d.pop("timeout", UNSET))

        def _parse_timeout_warn(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        timeout_warn = _parse_timeout_warn(d.pop("timeout_warn", UNSET))

        tools = cast(list[str], d.pop("tools", UNSET))

        warm = d.pop("warm", UNSET)

        def _parse_warm_idle(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        warm_idle = _parse_warm_idle(d.pop("warm_idle", UNSET))

        def _parse_workspace(data: object) -> None | Unset | WorkspaceMode:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                workspace_type_0 = check_workspace_mode(data)

                return workspace_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | WorkspaceMode, data)

        workspace = _parse_workspace(d.pop("workspace", UNSET))

        run_request = cls(
            add_dirs=add_dirs,
            agent_file=agent_file,
            agents=agents,
            binary=binary,
            callback_url=callback_url,
            chain=chain,
            context=context,
            context_dir=context_dir,
            context_max=context_max,
            cwd=cwd,
            debug_prompt=debug_prompt,
            env=env,
            extend_on_activity=extend_on_activity,
            extra_args=extra_args,
            extra_args_mode=extra_args_mode,
            file_name=file_name,
            gateway=gateway,
            handoff=handoff,
            idempotency_key=idempotency_key,
            idle_timeout=idle_timeout,
            ignore_quota=ignore_quota,
            input_=input_,
            labels=labels,
            max_context_tokens=max_context_tokens,
            max_cost_usd=max_cost_usd,
            max_input_tokens=max_input_tokens,
            max_model_calls=max_model_calls,
            max_model_time=max_model_time,
            max_output_tokens=max_output_tokens,
            max_provider_retries=max_provider_retries,
            max_timeout=max_timeout,
            max_tokens=max_tokens,
            max_turns=max_turns,
            model=model,
            no_unattended_instruction=no_unattended_instruction,
            not_before=not_before,
            on_dirty=on_dirty,
            output_schema=output_schema,
            permission_mode=permission_mode,
            persona=persona,
            priority=priority,
            prompt=prompt,
            prompt_max_bytes=prompt_max_bytes,
            prompt_warn_bytes=prompt_warn_bytes,
            providers=providers,
            reasoning_effort=reasoning_effort,
            record_model_calls=record_model_calls,
            resume=resume,
            retry_on=retry_on,
            rotate_handoff=rotate_handoff,
            rotate_prompt=rotate_prompt,
            sandbox=sandbox,
            session=session,
            session_busy=session_busy,
            skill=skill,
            skip_context_file=skip_context_file,
            system=system,
            system_file=system_file,
            task=task,
            thinking_budget=thinking_budget,
            tier=tier,
            timeout=timeout,
            timeout_warn=timeout_warn,
            tools=tools,
            warm=warm,
            warm_idle=warm_idle,
            workspace=workspace,
        )

        return run_request
