mod openapi;
mod openapi_meaning;
