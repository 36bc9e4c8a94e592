package server

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"sync/atomic"

	"github.com/labstack/echo/v4"
)

// The request id: a request that brings an X-Request-Id keeps it; any other is given one, sent
// back in X-Request-Id and written in its log lines. An id is 32 ASCII letters, as echo's
// generator made them: 16 drawn once per process from crypto/rand (91 bits: two processes do
// not share them), then 16 that spell a per-process counter through a bijection of 64-bit
// numbers drawn with them, so that no two requests of a process share an id and the ids do not
// show how many requests came before. A request id names a request in the logs; it grants
// nothing, so it needs to be unique, not secret.

const idLetters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// requestIDs makes the ids of one process.
type requestIDs struct {
	prefix   [16]byte
	mul, add uint64 // n -> n*mul + add (mul odd): a bijection of uint64
	n        atomic.Uint64
}

func newRequestIDs() (*requestIDs, error) {
	var seed [16]byte
	if _, err := rand.Read(seed[:]); err != nil {
		return nil, fmt.Errorf("server: request ids: %w", err)
	}
	g := &requestIDs{mul: binary.LittleEndian.Uint64(seed[:8]) | 1, add: binary.LittleEndian.Uint64(seed[8:])}
	for i := 0; i < len(g.prefix); {
		if _, err := rand.Read(seed[:]); err != nil {
			return nil, fmt.Errorf("server: request ids: %w", err)
		}
		for _, b := range seed {
			if int(b) < 4*len(idLetters) && i < len(g.prefix) { // uniform: 208 = 4 × 52
				g.prefix[i] = idLetters[int(b)%len(idLetters)]
				i++
			}
		}
	}
	return g, nil
}

// next returns a new id.
func (g *requestIDs) next() string {
	var b [32]byte
	copy(b[:16], g.prefix[:])
	v := g.n.Add(1)*g.mul + g.add
	for i := 31; i >= 16; i-- { // 52^16 > 2^64: every value has its own 16 letters
		b[i] = idLetters[v%uint64(len(idLetters))]
		v /= uint64(len(idLetters))
	}
	return string(b[:])
}

// middleware gives the request its id (the one it brought, or a new one) and sends it back.
func (g *requestIDs) middleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		rid := c.Request().Header.Get(echo.HeaderXRequestID)
		if rid == "" {
			rid = g.next()
		}
		c.Response().Header()[echo.HeaderXRequestID] = []string{rid}
		return next(c)
	}
}
