package proof

// fieldWriter writes the canonical text of a digest-field object straight from the struct,
// skipping the map that Object builds; the callers list the members in canonical order, and
// the tests hold the result equal to Canonicalize(Object()).
type fieldWriter struct {
	dst []byte
	n   int
	err error
}

func (w *fieldWriter) key(k string) {
	if w.n > 0 {
		w.dst = append(w.dst, ',')
	}
	w.n++
	w.dst = append(w.dst, '"')
	w.dst = append(w.dst, k...) // plain ASCII names: nothing to escape
	w.dst = append(w.dst, '"', ':')
}

func (w *fieldWriter) str(k, v string) {
	if w.err != nil {
		return
	}
	w.key(k)
	if w.dst, w.err = appendStringChecked(w.dst, v); w.err != nil {
		w.err = within(w.err, k)
	}
}

func (w *fieldWriter) int(k string, v int64) {
	if w.err != nil {
		return
	}
	w.key(k)
	w.dst, _ = appendNumber(w.dst, float64(v)) // always finite
}

func (w *fieldWriter) object(k string, m map[string]any) {
	if w.err != nil {
		return
	}
	w.key(k)
	if w.dst, w.err = appendMap(w.dst, m, 2); w.err != nil {
		w.err = within(w.err, k)
	}
}

// objectOr writes canonical, when not nil, as the member's value, else m.
func (w *fieldWriter) objectOr(k string, m map[string]any, canonical *string) {
	if canonical == nil {
		w.object(k, m)
		return
	}
	if w.err != nil {
		return
	}
	w.key(k)
	w.dst = append(w.dst, *canonical...)
}

func (w *fieldWriter) digest() (string, error) {
	if w.err != nil {
		if ve, ok := w.err.(*valueError); ok {
			ve.finish()
		}
		return "", w.err
	}
	return DigestBytes(append(w.dst, '}')), nil
}
