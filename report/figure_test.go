package report

import (
	"bytes"
	"errors"
	"flag"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
)

var (
	update = flag.Bool("update", false, "rewrite the golden files in testdata")
	pngDir = flag.String("pngdir", "", "also write every fixture as PNG into this directory, for eyeballing the style")
)

// TestGoldenSVG renders every fixture as SVG and compares it with
// testdata/<name>.svg. Run `go test ./report -update` to regenerate the
// goldens; a mismatch writes testdata/<name>.got.svg for inspection.
func TestGoldenSVG(t *testing.T) {
	for _, fx := range fixtures() {
		t.Run(fx.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := fx.fig().Encode(&buf, "svg"); err != nil {
				t.Fatal(err)
			}
			got := buf.Bytes()
			golden := filepath.Join("testdata", fx.name+".svg")
			gotPath := filepath.Join("testdata", fx.name+".got.svg")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				os.Remove(gotPath)
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run `go test ./report -update` to create it)", err)
			}
			if msg := compareSVG(want, got); msg != "" {
				if err := os.WriteFile(gotPath, got, 0o644); err != nil {
					t.Error(err)
				}
				t.Fatalf("%s differs from golden: %s\nwrote %s; if the change is intended run `go test ./report -update`", fx.name, msg, gotPath)
			}
			os.Remove(gotPath)
			if *pngDir != "" {
				if err := fx.fig().Render(filepath.Join(*pngDir, fx.name+".png")); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

var svgNumber = regexp.MustCompile(`-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?`)

// compareSVG returns "" if the two SVG documents are identical up to
// floating-point noise in their numbers (|Δ| ≤ 0.01, far below a pixel),
// which can differ between CPU architectures that fuse multiply-adds;
// otherwise it describes the first difference.
func compareSVG(want, got []byte) string {
	if bytes.Equal(want, got) {
		return ""
	}
	wl := strings.Split(string(want), "\n")
	gl := strings.Split(string(got), "\n")
	if len(wl) != len(gl) {
		return "line count " + strconv.Itoa(len(gl)) + ", want " + strconv.Itoa(len(wl))
	}
	for i := range wl {
		if wl[i] == gl[i] {
			continue
		}
		ws := svgNumber.Split(wl[i], -1)
		gs := svgNumber.Split(gl[i], -1)
		wn := svgNumber.FindAllString(wl[i], -1)
		gn := svgNumber.FindAllString(gl[i], -1)
		same := len(ws) == len(gs) && len(wn) == len(gn)
		for j := 0; same && j < len(ws); j++ {
			same = ws[j] == gs[j]
		}
		for j := 0; same && j < len(wn); j++ {
			a, errA := strconv.ParseFloat(wn[j], 64)
			b, errB := strconv.ParseFloat(gn[j], 64)
			same = errA == nil && errB == nil && math.Abs(a-b) <= 0.01
		}
		if !same {
			return "line " + strconv.Itoa(i+1) + ":\n got: " + gl[i] + "\nwant: " + wl[i]
		}
	}
	return ""
}

func TestSVGDeterministic(t *testing.T) {
	for _, fx := range fixtures() {
		var a, b bytes.Buffer
		if err := fx.fig().Encode(&a, "svg"); err != nil {
			t.Fatal(err)
		}
		if err := fx.fig().Encode(&b, ".SVG"); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("%s: two renderings differ", fx.name)
		}
	}
}

// TestPNG decodes PNG output and checks its size and that the plot area
// is not blank.
func TestPNG(t *testing.T) {
	for _, name := range []string{"lines", "bars", "cdf", "stacked"} {
		var fig *Figure
		for _, fx := range fixtures() {
			if fx.name == name {
				fig = fx.fig()
			}
		}
		st := DefaultStyle()
		if name != "lines" {
			// The default 300 dpi is checked once; a lower resolution
			// keeps the race-enabled run fast.
			st.DPI = 100
			fig.Style = &st
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			if err := fig.Encode(&buf, "png"); err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(&buf)
			if err != nil {
				t.Fatal(err)
			}
			wantW := int(math.Round(float64(st.Width/vg.Inch) * float64(st.DPI)))
			wantH := int(math.Round(float64(st.Height/vg.Inch) * float64(st.DPI)))
			b := img.Bounds()
			if b.Dx() != wantW || b.Dy() != wantH {
				t.Fatalf("size %dx%d, want %dx%d", b.Dx(), b.Dy(), wantW, wantH)
			}
			// The central half of the image lies inside the plot area.
			inner := image.Rect(b.Min.X+b.Dx()/4, b.Min.Y+b.Dy()/4, b.Max.X-b.Dx()/4, b.Max.Y-b.Dy()/4)
			ink := 0
			for y := inner.Min.Y; y < inner.Max.Y; y++ {
				for x := inner.Min.X; x < inner.Max.X; x++ {
					r, g, bl, _ := img.At(x, y).RGBA()
					// Ignore white and the light-grey grid.
					if r < 0xc000 || g < 0xc000 || bl < 0xc000 {
						ink++
					}
				}
			}
			if frac := float64(ink) / float64(inner.Dx()*inner.Dy()); frac < 0.01 {
				t.Errorf("plot area is nearly blank: %.4f of pixels inked", frac)
			}
			// The corners of the figure are white margin.
			if r, g, bl, a := img.At(b.Min.X, b.Min.Y).RGBA(); r != 0xffff || g != 0xffff || bl != 0xffff || a != 0xffff {
				t.Errorf("top-left pixel is %x %x %x %x, want opaque white", r, g, bl, a)
			}
		})
	}
}

func TestSaveFormats(t *testing.T) {
	dir := t.TempDir()
	fig := fixtureCDF()
	st := DefaultStyle()
	st.DPI = 50
	fig.Style = &st
	paths, err := fig.Save(dir, "cdf")
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != len(DefaultFormats) {
		t.Fatalf("paths = %v", paths)
	}
	magic := map[string]string{".pdf": "%PDF", ".png": "\x89PNG", ".svg": "<?xml"}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if m := magic[filepath.Ext(p)]; !bytes.HasPrefix(data, []byte(m)) {
			t.Errorf("%s starts with %q, want %q", p, data[:min(8, len(data))], m)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(DefaultFormats) {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("directory holds %v; temporary files left behind?", names)
	}

	// Unsupported formats and bad names fail without writing anything.
	if _, err := fixtureCDF().Save(dir, "x", "gif"); !errors.Is(err, ErrInvalid) {
		t.Errorf("gif: err = %v", err)
	}
	if _, err := fixtureCDF().Save(dir, "a/b", "svg"); !errors.Is(err, ErrInvalid) {
		t.Errorf("bad base name: err = %v", err)
	}
	if err := fixtureCDF().Render(filepath.Join(dir, "noext")); !errors.Is(err, ErrInvalid) {
		t.Errorf("no extension: err = %v", err)
	}
	if err := fixtureCDF().Render(filepath.Join(dir, "missing", "x.svg")); err == nil {
		t.Error("missing directory: want error")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != len(DefaultFormats) {
		t.Errorf("failed saves left files behind: %d entries", len(entries))
	}
}

// TestRenderKeepsOldFileOnError checks that a failed render does not
// clobber an existing file.
func TestRenderKeepsOldFileOnError(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "fig.svg")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := NewLines("bad", "", "x", "y", Series{Label: "s", X: []float64{1}, Samples: [][]float64{{math.NaN()}}})
	if err := bad.Render(p); err == nil {
		t.Fatal("want error")
	}
	if data, _ := os.ReadFile(p); string(data) != "old" {
		t.Errorf("file now holds %q", data)
	}
}

func TestValidateErrors(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name string
		fig  *Figure
		want []string // substrings of the error
	}{
		{"nil", nil, []string{"nil figure"}},
		{"no-id", NewLines("", "", "x", "y", Series{Label: "a", X: []float64{1}, Samples: [][]float64{{1}}}), []string{"empty ID"}},
		{"no-label", NewLines("f1", "", "", "y [s]", Series{Label: "a", X: []float64{1}, Samples: [][]float64{{1}}}), []string{`"f1"`, "axis labels"}},
		{"no-series", NewLines("f2", "", "x", "y"), []string{`"f2"`, "no series"}},
		{"mismatch", NewLines("f3", "", "x", "y", Series{Label: "DRF", X: []float64{1, 2}, Samples: [][]float64{{1}}}), []string{`"f3"`, `"DRF"`, "len(X) = 2"}},
		{"empty-series", NewLines("f4", "", "x", "y", Series{Label: "SP"}), []string{`"f4"`, `"SP"`, "no points"}},
		{"empty-samples", NewLines("f5", "", "x", "y", Series{Label: "SP", X: []float64{1}, Samples: [][]float64{{}}}), []string{`"SP"`, "no samples"}},
		{"nan-sample", NewLines("f6", "", "x", "y", Series{Label: "BPF", X: []float64{1}, Samples: [][]float64{{nan}}}), []string{`"f6"`, `"BPF"`, "NaN"}},
		{"inf-x", NewLines("f7", "", "x", "y", Series{Label: "BPF", X: []float64{math.Inf(1)}, Samples: [][]float64{{1}}}), []string{`"BPF"`, "infinite"}},
		{"logx-nonpositive", func() *Figure {
			f := NewLines("f8", "", "x", "y", Series{Label: "a", X: []float64{0}, Samples: [][]float64{{1}}})
			f.LogX = true
			return f
		}(), []string{`"f8"`, `"a"`, "log axis"}},
		{"bars-mismatch", NewBars("b1", "", "x", "y", []string{"a", "b"}, CategorySeries{Label: "DRF", Samples: [][]float64{{1}}}), []string{`"b1"`, `"DRF"`, "2 categories"}},
		{"bars-nan", NewBars("b2", "", "x", "y", []string{"a"}, CategorySeries{Label: "DRF", Samples: [][]float64{{nan}}}), []string{`"DRF"`, "NaN"}},
		{"bars-empty", NewBars("b3", "", "x", "y", []string{"a"}, CategorySeries{Label: "DRF", Samples: [][]float64{nil}}), []string{`"DRF"`, "no samples"}},
		{"bars-logy", func() *Figure {
			f := NewBars("b4", "", "x", "y", []string{"a"}, CategorySeries{Label: "DRF", Samples: [][]float64{{1}}})
			f.LogY = true
			return f
		}(), []string{`"b4"`, "LogY"}},
		{"boxes-no-categories", NewBoxes("x1", "", "x", "y", nil, CategorySeries{Label: "a"}), []string{`"x1"`, "no categories"}},
		{"cdf-empty", NewCDF("c1", "", "x", "CDF", Distribution{Label: "DRF"}), []string{`"c1"`, `"DRF"`, "no values"}},
		{"cdf-nan", NewCDF("c2", "", "x", "CDF", Distribution{Label: "DRF", Values: []float64{1, nan}}), []string{`"DRF"`, "NaN"}},
		{"stacked-len", NewStackedArea("s1", "", "t", "y", []float64{0, 1}, Layer{Label: "LQ", Y: []float64{1}}), []string{`"s1"`, `"LQ"`, "len(Y) = 1"}},
		{"stacked-order", NewStackedArea("s2", "", "t", "y", []float64{0, 0}, Layer{Label: "LQ", Y: []float64{1, 1}}), []string{`"s2"`, "strictly increasing"}},
		{"stacked-negative", NewStackedArea("s3", "", "t", "y", []float64{0, 1}, Layer{Label: "LQ", Y: []float64{1, -1}}), []string{`"LQ"`, "negative"}},
		{"scatter-len", NewScatter("p1", "", "x", "y", Points{Label: "jobs", X: []float64{1, 2}, Y: []float64{1}}), []string{`"p1"`, `"jobs"`, "len(Y) = 1"}},
		{"bad-range", func() *Figure {
			f := fixtureLines()
			f.YRange = &Range{Min: 2, Max: 1}
			return f
		}(), []string{`"fig-lines"`, "y range"}},
		{"bad-refline", func() *Figure {
			f := fixtureLines()
			f.RefLines = []RefLine{{Label: "DRF baseline", Y: math.Inf(1)}}
			return f
		}(), []string{`"fig-lines"`, `"DRF baseline"`, "infinite"}},
		{"bad-kind", &Figure{ID: "k", XLabel: "x", YLabel: "y"}, []string{`"k"`, "unknown kind"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.fig.Validate()
			if err == nil {
				t.Fatal("want error")
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("error %v does not wrap ErrInvalid", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %s", err, w)
				}
			}
			// Rendering reports the same error instead of panicking.
			var buf bytes.Buffer
			if err := tc.fig.Encode(&buf, "svg"); err == nil {
				t.Error("Encode: want error")
			}
		})
	}
	for _, fx := range fixtures() {
		if err := fx.fig().Validate(); err != nil {
			t.Errorf("fixture %s: %v", fx.name, err)
		}
	}
}

func TestLegendPlacement(t *testing.T) {
	// A rising line leaves the top-left corner... only on the left of
	// the rise; the bottom-right corner is free.
	rising := NewLines("rise", "", "x", "y", Series{Label: "up", X: []float64{0, 1, 2, 3, 4}, Samples: [][]float64{{0}, {1}, {2}, {3}, {4}}})
	// A full stacked area leaves no corner free.
	full := fixtureStacked()
	tests := []struct {
		fig  *Figure
		want LegendPosition
	}{
		{fixtureCDF(), LegendBottomRight},
		{rising, LegendTopLeft},
		{full, LegendAbove},
	}
	for _, tc := range tests {
		got := legendPlacement(t, tc.fig)
		if got != tc.want {
			t.Errorf("%s: legend at %v, want %v", tc.fig.ID, got, tc.want)
		}
	}
}

// legendPlacement renders f and returns where its legend went.
func legendPlacement(t *testing.T, f *Figure) LegendPosition {
	t.Helper()
	_, pos, err := f.canvas("svg")
	if err != nil {
		t.Fatal(err)
	}
	return pos
}
