//! The user-facing description of the script format.

/// Shown by `agentgate fake-llm --help` after the options.
pub const SCRIPT_HELP: &str = r#"SCRIPT FORMAT (YAML)

A script is an ordered list of turns. For each model request the server
picks the first turn, in order, that still has uses left and whose `match`
conditions all hold; it answers with that turn and uses it up (once, unless
`times: N` or `repeat: true`). A request no turn matches gets the default
answer (a friendly greeting), or an HTTP 500 with `on_unmatched: error`.
Without --script every request gets the default answer.

Side requests that clients make besides the conversation turn (Gemini CLI's
model router, opencode's title request, Qwen Code's memory extraction) get a
canned answer and never use up a turn; the request log marks them `side`.

  on_unmatched: default        # default | error
  default_text: "ok"           # replaces the default greeting
  models: [fake-model, gpt-5.5] # what GET /v1/models lists (first = Codex default)
  turns:
    - name: make-file          # label shown in the request log
      match:                   # all optional; all given must hold
        contains: "hello.txt"  # substring of the latest user message
        regex: "(?i)create"    # regex over the latest user message
        system: "be terse"     # substring of the system instructions
        tool_result: false     # latest input is (true) / is not (false) a tool result
        model: "sonnet"        # substring of the requested model
        api: anthropic         # anthropic | responses | chat | gemini
      times: 1                 # uses (default 1); or `repeat: true`
      thinking: "Plan: run echo."          # a thinking/reasoning block
      text: "Creating it."                 # or a list of chunks: ["Creat", "ing"]
      chunk_chars: 4                       # or split the text every N characters
      tool_call: {name: shell, command: "echo hello > hello.txt"}
      usage: {input: 120, output: 8, cache_read: 0, cache_write: 0, reasoning: 5}
      headers:                 # added to the HTTP response (names lower-cased)
        anthropic-ratelimit-unified-5h-utilization: "0.97"
        x-ratelimit-remaining-tokens: "10"
    - match: {tool_result: true}
      text: "done: {{tool_output}}"   # the tool results' output, as the client sent it
    - match: {contains: "FAIL"}
      error: {kind: rate_limit, retry_after: 1}   # status/message optional
    - match: {contains: "LIMIT"}
      error:
        kind: rate_limit
        headers: {retry-after: "2", anthropic-ratelimit-unified-status: rejected}
    - match: {contains: "SLOW"}
      delay_ms: 2000            # wait before answering
      chunk_delay_ms: 100       # wait between streamed chunks
      text: [a, b, c]
    - match: {contains: "CUT"}
      text: [partial, never-sent]
      fail: mid_stream          # drop the connection after the first content
    - match: {contains: "BREAK"}
      text: [partial, never-sent]
      fail: error_event         # after the first content: the API's in-stream error
      fail_error: {kind: overloaded}   # what it carries (default server_error)
    - match: {contains: "HANG"}
      hang: true                # never answer; or `hang: mid_stream`

Tool calls: `name` is a tool the client declared, or the alias `shell`,
which resolves to the shell tool the request declared (Bash, exec_command,
run_shell_command, bash) with the command put where that tool's schema
wants it (`command` or `cmd`). `args: {...}` gives arguments verbatim and is
merged over the shaped ones. A `shell` call to a client that declared no
shell tool is answered with HTTP 400 naming the declared tools.

Usage: `input` = uncached prompt tokens, `cache_read`/`cache_write` = cached
prompt tokens, `output` = visible output tokens, `reasoning` = thinking
tokens. Each API gets them in its own fields (OpenAI input_tokens =
input + cache_read + cache_write, output_tokens includes reasoning;
Anthropic output_tokens includes thinking; Gemini thoughtsTokenCount apart).
Without `usage` the figures are estimated at four characters a token.
`cache_write_1h: N` is the part of `cache_write` written with a 1-hour TTL
(at most `cache_write`): Anthropic reports `cache_creation:
{ephemeral_5m_input_tokens: cache_write - N, ephemeral_1h_input_tokens: N}`
in its usage (streamed and not); the other APIs have no TTL split.

Headers: `headers: {name: value, ...}` on a turn adds them to its HTTP
response (streamed or not, or its error); on an `error:` to the error
response, after the turn's. They replace the server's own of the same name
(an error's `retry-after` over `retry_after:`). Names and values are checked
at load; the framing headers (content-length, transfer-encoding, connection,
...) cannot be scripted.

Broken streams (`fail:`), each after the first content frame (first text
chunk, thinking or tool call):
  mid_stream       close the connection: no terminating chunk, no closing event
  error_event      send the API's in-stream error, then end the stream:
                   Anthropic `event: error` (overloaded_error / api_error),
                   Responses `error` event, Chat a chunk {"error": {...}},
                   Gemini a chunk {"error": {code, message, status}}
  response_failed  Responses `response.failed` (status failed + error);
                   elsewhere the same as error_event
  no_finish        end cleanly without the closing record: no Gemini
                   finishReason, no Anthropic message_stop, no Responses
                   response.completed, no Chat finish_reason nor [DONE]
`fail_error` (kind, message, status as for `error`) is the error carried by
error_event / response_failed. A request that is not streamed gets it as an
HTTP error. With `repeat: true` every retry of the client breaks the same way.

Error kinds (default HTTP status; each answered with the provider's real
error body for the API the request came on):
  rate_limit (429)   insufficient_quota (429; Anthropic 400 credit balance)
  overloaded (Anthropic 529, else 503)   invalid_model (404)   auth (401)
  permission_denied (403)   context_too_long (400)   invalid_request (400)
  server_error (500)

ENDPOINTS
  POST /v1/messages, /v1/messages/count_tokens      Anthropic Messages
  POST /v1/responses                                OpenAI Responses (SSE)
  POST /v1/chat/completions                         OpenAI Chat Completions
  POST /v1beta/models/M:generateContent, :streamGenerateContent?alt=sse,
       :countTokens                                 Gemini
  GET  /v1/models, /v1beta/models                   model listings (a script's
                                                    `models:` replaces the list)
  GET  /v1/models?client_version=V, /codex/models   Codex's catalog format
                                                    (a provider's model_catalog_url)
  HEAD /                                            liveness

REQUEST LOG (--log FILE): one JSON object per request with n, ts, method,
path, api, model, stream, tools (declared names), messages (role, text,
tool_calls, tool_results, thinking), side, turn, replayed_call, outcome,
status.

REPLAY (--replay FILE, instead of --script): FILE is a gateway recording,
the `model-calls.jsonl` of a run made with `agentgate run --gateway
--record-model-calls`. The n-th model request of an API (Anthropic Messages,
Responses, Chat Completions, Gemini) gets the n-th recorded call of that API
(in call order): its status, headers (not the framing ones) and body, an
event stream sent event by event (split at blank lines). A call recorded
cut short is cut again after its body; one recorded without a response gets
HTTP 502. A request past the recording gets HTTP 400 in the API's own error
shape naming the recording. Token counts and model lists are answered as
usual. A malformed line is refused at start with its line number.

HTTPS (--tls-cert FILE --tls-key FILE): PEM certificate chain and private
key; the printed URL is then https://127.0.0.1:PORT. Unreadable or
mismatched files are refused at start.
"#;
