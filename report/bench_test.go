package report

import (
	"io"
	"testing"
)

func BenchmarkEncode(b *testing.B) {
	for _, format := range []string{"svg", "png", "pdf"} {
		b.Run(format, func(b *testing.B) {
			f := fixtureLines()
			for b.Loop() {
				if err := f.Encode(io.Discard, format); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
