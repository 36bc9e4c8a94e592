package stateindex

import (
	"bytes"
	"fmt"
	"testing"
)

// FuzzDecodeProof: a proof's encoding is unique: whatever DecodeProof accepts, Encode writes
// back byte for byte.
func FuzzDecodeProof(f *testing.F) {
	b := smallIndex(f, 300, 100)
	for i := range 20 {
		p, _, _ := b.Prove(IDKey(fmt.Sprint("id-", i)))
		f.Add(p.Encode())
		p, _, _ = b.Prove(IDKey(fmt.Sprint("absent-", i)))
		f.Add(p.Encode())
	}
	f.Add([]byte{0, 0, 0})
	f.Fuzz(func(t *testing.T, in []byte) {
		p, err := DecodeProof(in)
		if err != nil {
			return
		}
		if out := p.Encode(); !bytes.Equal(out, in) {
			t.Fatalf("DecodeProof(%x) = %+v, which encodes as %x", in, p, out)
		}
	})
}

// TestResumeBuilder: a builder resumed over the store of another, at its size and root,
// continues exactly as the first would have.
func TestResumeBuilder(t *testing.T) {
	store := NewMemStore()
	a := NewBuilder(store)
	whole := NewBuilder(NewMemStore())
	apply := func(b *Builder, i int) {
		if _, err := b.ApplyKeys([]Key{IDKey(fmt.Sprint("id-", i%37)), DomainKey(fmt.Sprint("d", i%5, ".example"))}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 100 {
		apply(a, i)
		apply(whole, i)
	}
	resumed := ResumeBuilder(store, a.Size(), a.Root())
	for i := 100; i < 200; i++ {
		apply(resumed, i)
		apply(whole, i)
	}
	if resumed.Root() != whole.Root() || resumed.Size() != 200 {
		t.Fatalf("resumed at 100: root %x size %d, want %x", resumed.Root(), resumed.Size(), whole.Root())
	}
}
