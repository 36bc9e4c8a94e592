package server

import (
	"embed"
	"io/fs"
	"net/http"

	"github.com/labstack/echo/v4"
)

// docsFS holds /docs: index.html and init.js (in the repository) and the Swagger UI assets
// copied from the swagger-ui-dist npm package by `make docs-assets`.
//
//go:embed docs
var docsFS embed.FS

func (s *Server) registerDocs(e *echo.Echo) {
	sub, _ := fs.Sub(docsFS, "docs")
	files := http.StripPrefix("/docs/", http.FileServer(http.FS(sub)))
	e.GET("/docs", func(c echo.Context) error {
		b, err := fs.ReadFile(sub, "index.html")
		if err != nil {
			return err
		}
		return c.HTMLBlob(http.StatusOK, b)
	})
	e.GET("/docs/*", echo.WrapHandler(files))
}
