// Command echobase is the HTTP ceiling of make bench-http: an echo instance with no middleware
// that answers every GET with the same JSON body, held in memory (read once from -body), so
// that the service's figures can be set against what the framework itself serves on the same
// machine in the same run.
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"

	"github.com/labstack/echo/v4"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	bodyFile := flag.String("body", "", "file holding the JSON body to serve")
	flag.Parse()
	body, err := os.ReadFile(*bodyFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "echobase:", err)
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "echobase:", err)
		os.Exit(2)
	}
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.GET("/*", func(c echo.Context) error { return c.JSONBlob(http.StatusOK, body) })
	e.Listener = ln
	fmt.Println(ln.Addr().String()) // the harness reads the bound address from the first line
	if err := e.Start(""); err != nil && err != http.ErrServerClosed {
		fmt.Fprintln(os.Stderr, "echobase:", err)
		os.Exit(1)
	}
}
