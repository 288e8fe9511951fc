-- The rate-limit windows the model gateway last read off the wire for each
-- quota key (agentgate_protocol::RateLimitWindow values, a JSON array).
-- Rows stored before have none (NULL).
ALTER TABLE quota ADD COLUMN windows jsonb;
