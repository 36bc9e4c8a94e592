package explorer

import (
	"encoding/json"
	"sort"
)

// node is one value of a JSON tree as the pages show it: a key (object member) or an index
// (array element), and either a scalar's text or children.
type node struct {
	Key      string
	Index    bool // Key is an array index
	Text     string
	Kind     string // string, number, bool, null, object, array
	Children []node
}

// maxTreeDepth bounds the rendered nesting (the API allows 256 levels; deeper is shown as JSON).
const maxTreeDepth = 32

// tree turns a decoded JSON value into nodes: object members in key order, array elements in
// order. Values nested deeper than maxTreeDepth are shown as their JSON text.
func tree(v any, depth int) []node {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		out := make([]node, 0, len(keys))
		for _, k := range keys {
			out = append(out, one(k, false, x[k], depth))
		}
		return out
	case []any:
		out := make([]node, 0, len(x))
		for i, e := range x {
			out = append(out, one(itoa(i), true, e, depth))
		}
		return out
	}
	return nil
}

func one(key string, index bool, v any, depth int) node {
	n := node{Key: key, Index: index}
	switch x := v.(type) {
	case map[string]any, []any:
		n.Kind = "object"
		if _, ok := x.([]any); ok {
			n.Kind = "array"
		}
		if depth >= maxTreeDepth {
			b, _ := json.Marshal(x)
			n.Kind, n.Text = "string", string(b)
			return n
		}
		n.Children = tree(x, depth+1)
	case string:
		n.Kind, n.Text = "string", x
	case json.Number:
		n.Kind, n.Text = "number", x.String()
	case bool:
		n.Kind, n.Text = "bool", str(x)
	case nil:
		n.Kind, n.Text = "null", "null"
	default:
		n.Kind, n.Text = "string", str(x)
	}
	return n
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}
