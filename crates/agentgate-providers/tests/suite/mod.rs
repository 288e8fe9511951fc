mod classify;
mod decode;
mod decode_qwen;
mod gateway_route;
