//! Every refusal of the loader, with its line and its message.

use super::{EXAMPLE, load};

/// Lines 1 to 3; the first step is on line 4.
const HEAD: &str = "version: 1\nname: t\nsteps:\n";

/// The line and the message (after the file and its location) of a
/// refused workflow; `None` when it is accepted.
fn refusal(text: &str) -> Option<(Option<u64>, String)> {
    let e = load(text).err()?;
    let shown = e.to_string();
    let message = shown
        .split_once(": ")
        .map_or(shown.clone(), |(_, m)| m.to_owned());
    Some((e.line(), message))
}

/// Each case: the steps (after `HEAD`), the line at fault, the start of
/// the message.
#[track_caller]
fn assert_refusals(cases: &[(&str, u64, &str)]) {
    for (steps, line, expected) in cases {
        let text = format!("{HEAD}{steps}");
        let (at, message) = refusal(&text).unwrap_or_else(|| panic!("accepted:\n{text}"));
        assert!(
            message.starts_with(expected),
            "{text}\nexpected: {expected}\n     got: {message}"
        );
        assert_eq!(at, Some(*line), "{text}\n{message}");
    }
}

#[test]
fn the_workflow_itself() {
    let cases = [
        (
            "version: 2\nname: t\nsteps: [{id: a, tool: t}]\n",
            1,
            "version: workflow version 2 is not supported: this agentgate reads version 1",
        ),
        (
            "version: 1\nname: ' '\nsteps: [{id: a, tool: t}]\n",
            2,
            "name: the name is empty",
        ),
        (
            "version: 1\nname: t\nsteps: []\n",
            3,
            "steps: no steps: a workflow needs at least one",
        ),
        (
            "version: 1\nname: t\ntimeout: soon\nsteps: [{id: a, tool: t}]\n",
            3,
            "timeout: `soon` is not a duration",
        ),
        (
            "version: 1\nname: t\ntimeout: 0s\nsteps: [{id: a, tool: t}]\n",
            3,
            "timeout: a timeout of 0 would end it at once",
        ),
        ("version: 1\nname: t\n", 2, "missing field `steps`"),
        (
            "version: 1\nname: t\ncolour: red\nsteps: [{id: a, tool: t}]\n",
            3,
            "unknown field, expected one of version, name",
        ),
        (
            "version: 1\nname: t\nsteps: [{id: a, tool: t}]\noutputs:\n  x: \"${steps.b.output}\"\n",
            5,
            "outputs.x: a reference to a missing step `b`",
        ),
        (
            "version: 1\nname: t\nsteps: [{id: a, tool: t}]\noutputs:\n  x: \"${answer.choice}\"\n",
            5,
            "outputs.x: `${answer...}` is only known in a decision's args",
        ),
        (
            "version: 1\nname: t\nsteps: [{id: a, tool: t}]\noutputs:\n  x: \"${steps.a.output\"\n",
            5,
            "outputs.x: an unclosed `${`",
        ),
    ];
    for (text, line, expected) in cases {
        let (at, message) = refusal(text).unwrap_or_else(|| panic!("accepted:\n{text}"));
        assert!(
            message.starts_with(expected),
            "{text}\nexpected: {expected}\n     got: {message}"
        );
        assert_eq!(at, Some(line), "{text}\n{message}");
    }
}

#[test]
fn the_issues_message_for_a_missing_step() {
    let text = EXAMPLE.replace(
        "${steps.review.output.approve}",
        "${steps.revew.output.approve}",
    );
    let e = load(&text).unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid workflow wf.yaml, line 17 column 5: steps[3].when: a reference to a missing step `revew`"
    );
}

#[test]
fn a_steps_kind() {
    assert_refusals(&[
        (
            "  - id: a\n    retries: 1\n",
            4,
            "steps[0]: a step needs one of tool, agent, parallel, decision",
        ),
        (
            "  - id: a\n    tool: t\n  - id: b\n    retries: 1\n",
            6,
            "steps[1]: a step needs one of tool, agent, parallel, decision",
        ),
        (
            "  - id: a\n    tool: t\n    agent: {prompt: p}\n",
            6,
            "steps[0].agent: a step is one of tool, agent, parallel, decision: this one gives tool and agent",
        ),
        (
            "  - {id: a, tool: t, parallel: {steps: [{id: b, tool: t}]}, decision: {for: a, agent: {prompt: p}, choices: [x]}}\n",
            4,
            "steps[0].parallel: a step is one of tool, agent, parallel, decision: this one gives tool and parallel and decision",
        ),
        (
            "  - {id: a, tool: t}\n  - {id: b, tool: 'a b'}\n",
            5,
            "steps[1].tool: `a b` is not a tool name",
        ),
        (
            "  - {id: a, tool: ''}\n",
            4,
            "steps[0].tool: `` is not a tool name",
        ),
    ]);
}

#[test]
fn an_unknown_key_names_the_kinds() {
    let kinds = "a step is one of tool, agent, parallel, decision (its other keys: id, when, needs, retries, backoff, timeout, args, copy_in, stdin)";
    for (steps, line) in [
        ("  - id: a\n    shell: make\n", 5),
        ("  - {id: a, tool: t}\n  - {id: b, shell: make}\n", 5),
        (
            "  - id: g\n    parallel:\n      steps:\n        - {id: a, tool: t}\n        - id: b\n          shell: make\n",
            9,
        ),
    ] {
        let text = format!("{HEAD}{steps}");
        let (at, message) = refusal(&text).unwrap();
        assert_eq!(message, format!("unknown key: {kinds}"), "{text}");
        assert_eq!(at, Some(line), "{text}");
    }
    // Unknown keys elsewhere keep the reader's message, without the key
    // (a file that is no workflow must not be quoted back).
    let (at, message) = refusal(&format!(
        "{HEAD}  - id: g\n    parallel: {{steps: [], size: 2}}\n"
    ))
    .unwrap();
    assert!(
        message.starts_with("unknown field, expected one of max_concurrency"),
        "{message}"
    );
    assert_eq!(at, Some(5));
    // A wrong type is the reader's too, with its line.
    let (at, message) = refusal(&format!(
        "{HEAD}  - id: a\n    tool: t\n    retries: many\n"
    ))
    .unwrap();
    assert!(message.contains("u32"), "{message}");
    assert_eq!(at, Some(6));
}

#[test]
fn step_ids() {
    let long = "x".repeat(65);
    assert_refusals(&[
        (
            "  - {id: '', tool: t}\n",
            4,
            "steps[0].id: `` is not a step id (letters, digits, `_` and `-`, 1 to 64 bytes)",
        ),
        (
            "  - {id: 'a b', tool: t}\n",
            4,
            "steps[0].id: `a b` is not a step id",
        ),
        (
            "  - {id: a.b, tool: t}\n",
            4,
            "steps[0].id: `a.b` is not a step id",
        ),
        (
            &format!("  - {{id: {long}, tool: t}}\n"),
            4,
            "steps[0].id: `xxxx",
        ),
        (
            "  - {id: a, tool: t}\n  - {id: a, tool: t}\n",
            5,
            "steps[1].id: the id `a` is also steps[0]'s: ids are unique in the workflow",
        ),
        (
            "  - {id: a, tool: t}\n  - id: g\n    parallel:\n      steps:\n        - {id: b, tool: t}\n        - {id: a, tool: t}\n",
            9,
            "steps[1].parallel.steps[1].id: the id `a` is also steps[0]'s",
        ),
        (
            "  - id: g\n    parallel:\n      steps:\n        - {id: g, tool: t}\n",
            7,
            "steps[0].parallel.steps[0].id: the id `g` is also steps[0]'s",
        ),
    ]);
}

#[test]
fn keys_of_another_kind() {
    assert_refusals(&[
        (
            "  - id: a\n    agent: {chain: c, prompt: p}\n    args: [x]\n",
            6,
            "steps[0].args: only a tool step takes args (this is an agent step)",
        ),
        (
            "  - id: a\n    parallel: {steps: [{id: b, tool: t}]}\n    copy_in: [x]\n",
            6,
            "steps[0].copy_in: only a tool step takes copy_in (this is a parallel group)",
        ),
        (
            "  - {id: t1, tool: t}\n  - id: a\n    decision: {for: t1, agent: {prompt: p}, choices: [x]}\n    stdin: hi\n",
            7,
            "steps[1].stdin: only a tool step takes stdin (this is a decision)",
        ),
    ]);
}

#[test]
fn durations() {
    assert_refusals(&[
        (
            "  - id: a\n    tool: t\n    timeout: soon\n",
            6,
            "steps[0].timeout: `soon` is not a duration",
        ),
        (
            "  - id: a\n    tool: t\n    timeout: 0\n",
            6,
            "steps[0].timeout: a timeout of 0 would end it at once",
        ),
        (
            "  - id: a\n    tool: t\n    backoff: 2 parsecs\n",
            6,
            "steps[0].backoff: `2 parsecs`: unknown unit `parsecs`",
        ),
    ]);
    assert!(
        load(&format!(
            "{HEAD}  - {{id: a, tool: t, timeout: 1m30s, backoff: 0}}\n"
        ))
        .is_ok()
    );
}

#[test]
fn groups() {
    assert_refusals(&[
        (
            "  - id: g\n    parallel:\n      steps: []\n",
            6,
            "steps[0].parallel.steps: a parallel group needs at least one step",
        ),
        (
            "  - id: g\n    parallel:\n      max_concurrency: 0\n      steps: [{id: a, tool: t}]\n",
            6,
            "steps[0].parallel.max_concurrency: 0 would run no member",
        ),
        (
            "  - id: g\n    parallel:\n      steps:\n        - {id: a, retries: 1}\n",
            7,
            "steps[0].parallel.steps[0]: a step needs one of tool, agent, parallel, decision",
        ),
    ]);
}

#[test]
fn decisions() {
    let tool = "  - {id: t1, tool: t}\n";
    let agent = "  - {id: ag, agent: {chain: c, prompt: p}}\n";
    let decide = |body: &str| format!("{tool}{agent}  - id: d\n    decision:\n{body}");
    let ok = "      agent: {prompt: p}\n      choices: [a, b]\n";
    assert_refusals(&[
        (
            &decide(&format!("      for: nope\n{ok}")),
            8,
            "steps[2].decision.for: names a missing step `nope`",
        ),
        (
            &decide(&format!("      for: d\n{ok}")),
            8,
            "steps[2].decision.for: a decision answers a tool step, not itself",
        ),
        (
            &decide(&format!("      for: ag\n{ok}")),
            8,
            "steps[2].decision.for: `ag` is an agent step: a decision answers a tool step's action_required",
        ),
        (
            &format!(
                "{}  - {{id: t2, tool: t}}\n",
                decide(&format!("      for: t2\n{ok}"))
            ),
            8,
            "steps[2].decision.for: `t2` comes after this decision: a decision answers an earlier tool step",
        ),
        (
            &decide("      for: t1\n      agent: {prompt: p}\n      choices: []\n"),
            10,
            "steps[2].decision.choices: no choices: list the answers the agent may give",
        ),
        (
            &decide("      for: t1\n      agent: {prompt: p}\n      choices: [a, ' ']\n"),
            10,
            "steps[2].decision.choices[1]: a choice is empty",
        ),
        (
            &decide(
                "      for: t1\n      agent: {prompt: p}\n      choices:\n        - a\n        - b\n        - a\n",
            ),
            13,
            "steps[2].decision.choices[2]: the choice `a` is listed twice",
        ),
        (
            &decide(&format!("      for: t1\n{ok}      max_rounds: 0\n")),
            11,
            "steps[2].decision.max_rounds: 0 rounds would fail every decision",
        ),
        (
            &decide(&format!(
                "      for: t1\n{ok}      answer: next\n      args: [x]\n"
            )),
            12,
            "steps[2].decision.args: args is for `answer: tool`",
        ),
        (
            &decide(&format!(
                "      for: t1\n{ok}      answer: next\n      max_rounds: 2\n"
            )),
            12,
            "steps[2].decision.max_rounds: max_rounds is for `answer: tool`",
        ),
        (
            &decide(
                "      for: t1\n      agent:\n        prompt: p\n        output_schema: s.json\n      choices: [a]\n",
            ),
            11,
            "steps[2].decision.agent.output_schema: a decision makes its own output schema (choice and reason): leave output_schema out",
        ),
        (
            &decide("      for: t1\n      agent: {chain: c}\n      choices: [a]\n"),
            9,
            "steps[2].decision.agent.prompt: a prompt or a task is needed",
        ),
        (
            &decide(
                "      for: t1\n      agent: {prompt: p}\n      choices: [a]\n      answer: later\n",
            ),
            11,
            "unknown variant, expected",
        ),
    ]);
    // A decision for a member of an earlier group is fine.
    let text = format!(
        "{HEAD}  - id: g\n    parallel: {{steps: [{{id: m, tool: t}}]}}\n  - id: d\n    decision: {{for: m, agent: {{prompt: p}}, choices: [a]}}\n"
    );
    assert!(load(&text).is_ok(), "{:?}", load(&text).err());
}

#[test]
fn templates_and_where_each_root_is_known() {
    assert_refusals(&[
        (
            "  - {id: a, tool: t, args: [ok, \"${input.x\"]}\n",
            4,
            "steps[0].args[1]: an unclosed `${` in `${input.x`",
        ),
        (
            "  - id: a\n    tool: t\n    copy_in: [\"${env.HOME}/x\"]\n",
            6,
            "steps[0].copy_in[0]: `${env.HOME}`: unknown root `env`",
        ),
        (
            "  - id: a\n    tool: t\n    stdin: \"${}\"\n",
            6,
            "steps[0].stdin: an empty reference",
        ),
        (
            "  - {id: s, tool: t}\n  - id: a\n    agent:\n      chain: c\n      prompt: \"${steps.s.outptu}\"\n",
            8,
            "steps[1].agent.prompt: `${steps.s.outptu}`: unknown step field `outptu`",
        ),
        (
            "  - id: a\n    tool: t\n    args: [\"${steps.b.output}\"]\n",
            6,
            "steps[0].args[0]: a reference to a missing step `b`",
        ),
        (
            "  - id: a\n    tool: t\n    args: [\"${action.action}\"]\n",
            6,
            "steps[0].args[0]: `${action...}` is only known in a decision's agent prompt",
        ),
        (
            "  - id: a\n    agent: {chain: c, prompt: \"${action}\"}\n",
            5,
            "steps[0].agent.prompt: `${action...}` is only known in a decision's agent prompt",
        ),
        (
            "  - id: a\n    tool: t\n    stdin: \"${answer.choice}\"\n",
            6,
            "steps[0].stdin: `${answer...}` is only known in a decision's args",
        ),
        (
            "  - {id: t1, tool: t}\n  - id: d\n    decision:\n      for: t1\n      agent: {prompt: \"${answer.choice}\"}\n      choices: [a]\n",
            8,
            "steps[1].decision.agent.prompt: `${answer...}` is only known in a decision's args",
        ),
        (
            "  - {id: t1, tool: t}\n  - id: d\n    decision:\n      for: t1\n      agent: {prompt: p}\n      choices: [a]\n      args: [\"${action.context}\"]\n",
            10,
            "steps[1].decision.args[0]: `${action...}` is only known in a decision's agent prompt",
        ),
        (
            "  - {id: t1, tool: t}\n  - id: d\n    decision:\n      for: t1\n      agent: {prompt: p}\n      choices: [a]\n      args: [\"${steps.zz.output}\"]\n",
            10,
            "steps[1].decision.args[0]: a reference to a missing step `zz`",
        ),
    ]);
}

#[test]
fn conditions() {
    assert_refusals(&[
        (
            "  - {id: a, tool: t}\n  - id: b\n    tool: t\n    when: \"${steps.a.output} = 3\"\n",
            7,
            "steps[1].when: `${steps.a.output} = 3`: expected `==` or `!=`",
        ),
        (
            "  - id: b\n    tool: t\n    when: \"\"\n",
            6,
            "steps[0].when: an empty condition",
        ),
        (
            "  - id: b\n    tool: t\n    when: \"${action.action} == x\"\n",
            6,
            "steps[0].when: `${action...}` is only known in a decision's agent prompt",
        ),
        (
            "  - id: b\n    tool: t\n    when: \"!${steps.gone.status}\"\n",
            6,
            "steps[0].when: a reference to a missing step `gone`",
        ),
    ]);
}

#[test]
fn agent_mappings() {
    assert_refusals(&[
        (
            "  - id: a\n    agent: claude\n",
            5,
            "steps[0].agent: expected a mapping",
        ),
        (
            "  - id: a\n    agent:\n      agent: x\n      agents: [y]\n      prompt: p\n",
            6,
            "steps[0].agent.agent: give agent or agents, not both",
        ),
        (
            "  - id: a\n    agent:\n      provider: x\n      providers: [y]\n      prompt: p\n",
            6,
            "steps[0].agent.provider: give provider or providers, not both",
        ),
        (
            "  - id: a\n    agent:\n      prompt: p\n      priority: 5\n",
            7,
            "steps[0].agent.priority: a step's run is queued with the workflow",
        ),
        (
            "  - id: a\n    agent:\n      prompt: p\n      idempotency_key: k\n",
            7,
            "steps[0].agent.idempotency_key: a step's run is queued with the workflow",
        ),
        (
            "  - id: a\n    agent:\n      prompt: p\n      not_before: '2030-01-01T00:00:00Z'\n",
            7,
            "steps[0].agent.not_before: a step's run is queued with the workflow",
        ),
        (
            "  - id: a\n    agent:\n      prompt: p\n      colour: red\n",
            7,
            "steps[0].agent.colour: unknown field `colour`",
        ),
        (
            "  - id: a\n    agent:\n      prompt: p\n      timeout: soon\n",
            7,
            "steps[0].agent.timeout: `soon` is not a duration",
        ),
        (
            "  - id: a\n    agent:\n      prompt: p\n      chain: c\n      agent: x\n",
            7,
            "steps[0].agent.chain: give one of providers, agents and chain",
        ),
        (
            "  - id: a\n    agent:\n      chain: c\n",
            5,
            "steps[0].agent.prompt: a prompt or a task is needed",
        ),
        (
            "  - id: a\n    agent:\n      prompt: p\n      model: 3\n",
            7,
            "steps[0].agent.model: invalid type",
        ),
        (
            "  - id: a\n    agent:\n      prompt: p\n      env: {'A=B': x}\n",
            7,
            "steps[0].agent.env: `A=B` is not a variable name",
        ),
        (
            "  - id: a\n    agent:\n      prompt: p\n      session_busy: wait\n",
            7,
            "steps[0].agent.session_busy: needs a session",
        ),
    ]);
}

#[test]
fn needs_and_cycles() {
    assert_refusals(&[
        (
            "  - {id: a, tool: t}\n  - id: b\n    tool: t\n    needs: [a, nope]\n",
            7,
            "steps[1].needs[1]: needs a missing step `nope`",
        ),
        (
            "  - {id: a, tool: t}\n  - {id: review, agent: {chain: c, prompt: \"${steps.publish.output}\"}}\n  - {id: publish, tool: t}\n",
            5,
            "steps[1]: a cycle: review → publish → review (each waits for the next)",
        ),
        (
            "  - {id: a, tool: t, needs: [c]}\n  - {id: b, tool: t}\n  - {id: c, tool: t}\n",
            4,
            "steps[0]: a cycle: a → c → b → a",
        ),
        (
            "  - {id: a, tool: t}\n  - {id: b, tool: t, args: [\"${steps.b.output}\"]}\n",
            5,
            "steps[1]: a cycle: b → b",
        ),
        (
            "  - {id: a, tool: t, when: \"${steps.a.status} == x\"}\n",
            4,
            "steps[0]: a cycle: a → a",
        ),
        (
            "  - id: g\n    parallel:\n      steps:\n        - {id: m, tool: t, args: [\"${steps.after.output}\"]}\n  - {id: after, tool: t}\n",
            4,
            "steps[0]: a cycle: g → m → after → g",
        ),
        (
            "  - id: g\n    parallel:\n      steps:\n        - {id: m, tool: t, needs: [g]}\n",
            4,
            "steps[0]: a cycle: g → m → g",
        ),
        (
            "  - id: g\n    parallel:\n      steps:\n        - {id: m1, tool: t, needs: [m2]}\n        - {id: m2, tool: t, needs: [m1]}\n",
            7,
            "steps[0].parallel.steps[0]: a cycle: m1 → m2 → m1",
        ),
        (
            "  - id: g\n    when: \"${steps.m.output}\"\n    parallel:\n      steps:\n        - {id: m, tool: t}\n",
            4,
            "steps[0]: the group `g` waits for its own member `m`",
        ),
    ]);
}
