// Renders openapi.yaml with Swagger UI (assets from the swagger-ui-dist npm package, embedded
// in the binary: no outside network).
window.addEventListener("load", function () {
  if (typeof SwaggerUIBundle !== "function") {
    return;
  }
  window.ui = SwaggerUIBundle({ url: "/openapi.yaml", dom_id: "#swagger-ui", deepLinking: true });
});
