package server_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/getkin/kin-openapi/openapi3"

	svc "github.com/svc-directory/svc"
)

// TestHandlersSitInTheirTagsFile holds the server's layout: the handler of an operation whose
// first tag in openapi.yaml is T is in server/T.go or server/T_*.go, so that a newcomer finds
// any operation from the contract alone. Every operation has a handler.
func TestHandlersSitInTheirTagsFile(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(svc.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	tagOf := map[string]string{} // handler name -> tag
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			if len(op.Tags) == 0 {
				t.Errorf("operation %s has no tag", op.OperationID)
				continue
			}
			r := []rune(op.OperationID)
			r[0] = unicode.ToUpper(r[0])
			tagOf[string(r)] = op.Tags[0]
		}
	}

	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fileOf := map[string]string{} // handler name -> file
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || len(fn.Recv.List) != 1 {
				continue
			}
			if star, ok := fn.Recv.List[0].Type.(*ast.StarExpr); ok {
				if id, ok := star.X.(*ast.Ident); ok && id.Name == "Server" {
					fileOf[fn.Name.Name] = name
				}
			}
		}
	}
	if len(tagOf) < 60 {
		t.Fatalf("found %d operations in openapi.yaml: the test is not reading the contract", len(tagOf))
	}
	for handler, tag := range tagOf {
		file, ok := fileOf[handler]
		switch {
		case !ok:
			t.Errorf("operation %s (tag %s) has no handler method on *Server", handler, tag)
		case file != tag+".go" && !strings.HasPrefix(file, tag+"_"):
			t.Errorf("handler %s is in server/%s; its tag is %s, so it belongs in server/%s.go or server/%s_*.go", handler, file, tag, tag, tag)
		}
	}
}
