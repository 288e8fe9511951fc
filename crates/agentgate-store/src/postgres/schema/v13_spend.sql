-- Budgets (see crate::spend): partial covering indexes over agent runs by
-- agent, chain and session name, then the start time, with the figures
-- included, so that what one of them spent since a time is a short
-- index-only range scan (all runs read runs_usage). IF NOT EXISTS: the
-- tests that fake an older database wind its version back and keep these.
CREATE INDEX IF NOT EXISTS runs_spend_agent ON runs (agent, started_at)
    INCLUDE (cost_usd, total_tokens) WHERE kind = 'agent';
CREATE INDEX IF NOT EXISTS runs_spend_chain ON runs (chain, started_at)
    INCLUDE (cost_usd, total_tokens) WHERE kind = 'agent';
CREATE INDEX IF NOT EXISTS runs_spend_session ON runs (session_name, started_at)
    INCLUDE (cost_usd, total_tokens) WHERE kind = 'agent';
