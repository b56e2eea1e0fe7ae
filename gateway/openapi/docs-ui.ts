import { dirname } from 'node:path';
import express, { type RequestHandler } from 'express';

const uiDir = dirname(require.resolve('swagger-ui-dist/package.json'));

const INDEX = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Device Data Service API</title>
  <link rel="stylesheet" href="./swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="./swagger-ui-bundle.js"></script>
  <script src="./dds-init.js"></script>
</body>
</html>
`;

const INIT = `window.ui = SwaggerUIBundle({ url: '../openapi.json', dom_id: '#swagger-ui', deepLinking: true, persistAuthorization: true });\n`;

/**
 * GET /docs: Swagger UI from the swagger-ui-dist package in node_modules (no CDN), pointed at
 * /openapi.json. Served by middleware, not routes: it is a static page, not an API operation.
 */
export function docsUi(): RequestHandler {
  const files = express.static(uiDir, { index: false, maxAge: '1h' });
  return (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    if (req.path === '/' && !req.originalUrl.split('?')[0]?.endsWith('/')) return res.redirect(301, `${req.baseUrl}/`);
    if (req.path === '/' || req.path === '/index.html') return void res.type('html').send(INDEX);
    if (req.path === '/dds-init.js') return void res.type('js').send(INIT);
    return files(req, res, next);
  };
}
