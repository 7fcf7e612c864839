// Swagger UI's bundle (served from its npm package) defines this global.
declare const SwaggerUIBundle: (options: Record<string, unknown>) => unknown;

// From a file, not inline: the page's CSP allows scripts from 'self' only. No validator badge (it would call
// validator.swagger.io, which the CSP refuses).
SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', validatorUrl: null, deepLinking: true });
