mod openapi;
