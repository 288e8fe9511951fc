mod classify;
mod decode;
mod decode_qwen;
