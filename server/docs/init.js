// Renders openapi.yaml with Swagger UI (the swagger-ui-dist files committed beside this one and
// embedded in the binary: no outside network).
window.addEventListener("load", function () {
  if (typeof SwaggerUIBundle !== "function") {
    return;
  }
  window.ui = SwaggerUIBundle({ url: "/openapi.yaml", dom_id: "#swagger-ui", deepLinking: true });
});
