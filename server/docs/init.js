// Renders openapi.yaml with Swagger UI (the swagger-ui-dist files committed beside this one and
// embedded in the binary: no outside network).
//
// Two corrections of how Swagger UI shows this contract:
// - Authentication. An operation with optional authentication (`security: [{}, {bearerAuth: []}]`:
//   the public reads) counts in Swagger UI as authorized, since the empty requirement is met,
//   so it showed a closed padlock before any key was given, while key-only operations showed an
//   open one. Here the padlock of both says whether a key has been given (Authorize), and a label
//   says what the operation needs: "key optional" or "key required". Operations without
//   authentication (`security: []`) show neither.
// - The Servers list shows a server's description as plain text; markdown code spans
//   (`make run`) would show their backticks, so they are dropped there.
(function () {
  var labels = { optional: "key optional", required: "key required" };
  var titles = {
    optional: "An API key is optional: without one the operation answers as to anyone",
    required: "An API key is required: without one the operation answers 401",
  };

  // authKind: "none", "optional" or "required" for an operation's security requirements (an
  // Immutable List of Maps; an empty Map is the empty requirement, met without credentials).
  function authKind(security) {
    if (!security || !security.size) {
      return "none";
    }
    return security.some(function (r) { return r.isEmpty(); }) ? "optional" : "required";
  }

  function SvcAuthPlugin(system) {
    var React = system.React;
    var wrappers = {}; // one labelled button component per kind, made once
    function labelledButton(Button, kind) {
      if (!wrappers[kind]) {
        wrappers[kind] = function (props) {
          return React.createElement("span", { className: "svc-auth svc-auth-" + kind, title: titles[kind] },
            React.createElement("span", { className: "svc-auth-label" }, labels[kind]),
            React.createElement(Button, props));
        };
      }
      return wrappers[kind];
    }
    return {
      wrapComponents: {
        OperationSummary: function (Original) {
          return function (props) {
            var security = props.operationProps && props.operationProps.get("security");
            var kind = authKind(security);
            if (kind === "none") {
              return React.createElement(Original, props);
            }
            // Authorized means: a key was given that meets a requirement naming a scheme.
            var named = security.filter(function (r) { return !r.isEmpty(); });
            var authorized = !!props.authSelectors.isAuthorized(named);
            var getComponent = function (name, container) {
              var c = props.getComponent(name, container);
              return name === "authorizeOperationBtn" && c ? labelledButton(c, kind) : c;
            };
            return React.createElement(Original, Object.assign({}, props, {
              operationProps: props.operationProps.set("isAuthorized", authorized),
              getComponent: getComponent,
            }));
          };
        },
        Servers: function (Original) {
          return function (props) {
            var servers = props.servers && props.servers.map(function (s) {
              return s.update("description", function (d) { return typeof d === "string" ? d.replace(/`/g, "") : d; });
            });
            return React.createElement(Original, Object.assign({}, props, { servers: servers }));
          };
        },
      },
    };
  }

  window.addEventListener("load", function () {
    if (typeof SwaggerUIBundle !== "function") {
      return;
    }
    window.ui = SwaggerUIBundle({
      url: "/openapi.yaml",
      dom_id: "#swagger-ui",
      deepLinking: true,
      plugins: [SvcAuthPlugin],
    });
  });
})();
