mod custom_provider;
mod decode_opencode;
mod decode_replay;
mod library_chain;
mod no_final_record;
mod provider_data;
