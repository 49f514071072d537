// Renders the OpenAPI document on /ui/api with Swagger UI (served from the jar, see UiRoutes).
window.addEventListener('DOMContentLoaded', function () {
  var root = document.getElementById('swagger-ui');
  if (!root || typeof SwaggerUIBundle !== 'function') return;
  root.textContent = '';
  SwaggerUIBundle({
    url: root.getAttribute('data-spec'),
    dom_id: '#swagger-ui',
    deepLinking: true,
    // Requests from "Try it out" go to this server with the token typed into "Authorize".
    persistAuthorization: false
  });
});
