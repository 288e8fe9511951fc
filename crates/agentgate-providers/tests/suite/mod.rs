mod classify;
mod decode;
mod decode_claude_cache;
mod decode_qwen;
mod gateway_route;
