-- Usage reports (`agentgate usage`, `GET /v1/usage`). The agent and chain
-- of a run, generated from its envelope (stored: computed when the row is
-- written, and for every existing row now), and a partial covering index
-- over agent runs: the start time, then the dimensions, the outcome and the
-- figures as included columns, so that a month's report is one index-only
-- range scan and never parses a row's JSON. IF NOT EXISTS: the tests that
-- fake an older database wind its version back and keep these.
ALTER TABLE runs ADD COLUMN IF NOT EXISTS agent text
    GENERATED ALWAYS AS ((envelope::jsonb) ->> 'agent') STORED;
ALTER TABLE runs ADD COLUMN IF NOT EXISTS chain text
    GENERATED ALWAYS AS ((envelope::jsonb) ->> 'chain') STORED;
CREATE INDEX IF NOT EXISTS runs_usage ON runs (started_at)
    INCLUDE (provider, final_model, agent, chain, session_name, status, error_type,
             input_tokens, output_tokens, cache_read_input_tokens,
             cache_creation_input_tokens, reasoning_tokens, total_tokens, cost_usd, run_id)
    WHERE kind = 'agent';
