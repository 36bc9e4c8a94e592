package store

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestDialectDifferencesStayInDialectFile: outside the dialect files no code of the package asks which
// database it talks to (a comparison or switch case on a dialect name, on Dialect() or
// d.name(), or a type test on a dialect implementation); it calls the store's dialect instead.
func TestDialectDifferencesStayInDialectFile(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	isDialect := func(e ast.Expr) bool {
		switch e := e.(type) {
		case *ast.Ident:
			return e.Name == "DialectSQLite" || e.Name == "DialectPostgres"
		case *ast.CallExpr:
			if sel, ok := e.Fun.(*ast.SelectorExpr); ok {
				return sel.Sel.Name == "Dialect" || sel.Sel.Name == "name"
			}
		case *ast.SelectorExpr:
			return e.Sel.Name == "sqliteDialect" || e.Sel.Name == "postgresDialect"
		}
		return false
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasPrefix(name, "dialect") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BinaryExpr:
				if (n.Op == token.EQL || n.Op == token.NEQ) && (isDialect(n.X) || isDialect(n.Y)) {
					t.Errorf("%s: dialect check outside the dialect files", fset.Position(n.Pos()))
				}
			case *ast.SwitchStmt:
				if n.Tag != nil && isDialect(n.Tag) {
					t.Errorf("%s: switch on the dialect outside the dialect files", fset.Position(n.Pos()))
				}
			case *ast.CaseClause:
				for _, e := range n.List {
					if isDialect(e) {
						t.Errorf("%s: dialect case outside the dialect files", fset.Position(e.Pos()))
					}
				}
			case *ast.Ident:
				if n.Name == "sqliteDialect" || n.Name == "postgresDialect" {
					t.Errorf("%s: %s named outside the dialect files", fset.Position(n.Pos()), n.Name)
				}
			}
			return true
		})
	}
	if checked < 10 {
		t.Fatalf("checked %d files; run from the package directory", checked)
	}
}
