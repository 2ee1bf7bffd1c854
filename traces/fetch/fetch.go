// Package fetch downloads public trace files over HTTP(S) robustly: each file is written to a
// .part file, resumed with an HTTP Range request after a dropped connection, checked — a gzip file
// is decompressed completely, which verifies its CRC-32 and length — and only then renamed into
// place, so a file under its final name is always complete. Files already present are skipped.
//
// Google2011 lists the files of the Google cluster trace clusterdata-2011-2 as published in its
// bucket (https://commondatastorage.googleapis.com/clusterdata-2011-2).
package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/klauspost/compress/gzip"
)

// File is one file to download.
type File struct {
	URL  string // absolute URL
	Dest string // local path
}

// Options tune Get.
type Options struct {
	// Client is the HTTP client; nil means a client with a 60 s timeout between bytes.
	Client *http.Client
	// Retries is the number of further attempts per file after a failed one (network error,
	// 5xx status, truncated body or corrupt gzip); 0 means 4, negative means none.
	Retries int
	// RetryDelay is the wait before the first retry, doubling after each; 0 means 1 s.
	RetryDelay time.Duration
	// Progress receives one line per file event (skipped, resumed, done, retrying); nil discards.
	Progress io.Writer
}

// Summary counts what Get did.
type Summary struct {
	Downloaded, Skipped int
	Bytes               int64 // bytes received over the network
	Resumed             int   // downloads continued from a .part file
}

// Get downloads files in order. It stops at the first file that still fails after the retries.
func Get(ctx context.Context, files []File, o Options) (Summary, error) {
	var sum Summary
	if o.Client == nil {
		o.Client = &http.Client{Transport: &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: 30 * time.Second}).DialContext,
			TLSHandshakeTimeout:   30 * time.Second,
			ResponseHeaderTimeout: 60 * time.Second,
		}}
	}
	if o.Retries == 0 {
		o.Retries = 4
	} else if o.Retries < 0 {
		o.Retries = 0
	}
	if o.RetryDelay == 0 {
		o.RetryDelay = time.Second
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	for i, f := range files {
		if _, err := os.Stat(f.Dest); err == nil {
			sum.Skipped++
			fmt.Fprintf(o.Progress, "fetch: [%d/%d] %s: already complete, skipped\n", i+1, len(files), f.Dest)
			continue
		}
		if err := os.MkdirAll(filepath.Dir(f.Dest), 0o755); err != nil {
			return sum, fmt.Errorf("fetch: %w", err)
		}
		if err := getFile(ctx, f, o, &sum, fmt.Sprintf("[%d/%d]", i+1, len(files))); err != nil {
			return sum, err
		}
		sum.Downloaded++
	}
	return sum, nil
}

// permanentError is a failure that retrying cannot fix (HTTP 4xx, a local file error).
type permanentError struct{ err error }

// Error returns the underlying error's message.
func (e permanentError) Error() string { return e.err.Error() }

// Unwrap returns the underlying error.
func (e permanentError) Unwrap() error { return e.err }

func getFile(ctx context.Context, f File, o Options, sum *Summary, tag string) error {
	part := f.Dest + ".part"
	delay := o.RetryDelay
	var last error
	for attempt := 0; attempt <= o.Retries; attempt++ {
		if attempt > 0 {
			fmt.Fprintf(o.Progress, "fetch: %s %s: %v; retrying in %v (attempt %d of %d)\n", tag, f.URL, last, delay, attempt+1, o.Retries+1)
			select {
			case <-ctx.Done():
				return fmt.Errorf("fetch: %s: %w", f.URL, ctx.Err())
			case <-time.After(delay):
			}
			delay *= 2
		}
		err := attempt1(ctx, f, part, o, sum, tag)
		if err == nil {
			return nil
		}
		last = err
		var perm permanentError
		if errors.As(err, &perm) || ctx.Err() != nil {
			break
		}
	}
	return describe(f.URL, last)
}

// describe turns a download failure into the error Get returns, explaining network failures.
func describe(url string, err error) error {
	var dns *net.DNSError
	var op *net.OpError
	switch {
	case errors.As(err, &dns):
		return fmt.Errorf("fetch: %s: cannot resolve %s (offline? downloading the trace needs HTTPS access to the bucket; check the network or proxy, or pass --base-url): %w", url, dns.Name, err)
	case errors.As(err, &op) && op.Op == "dial":
		return fmt.Errorf("fetch: %s: cannot connect (offline? downloading the trace needs HTTPS access to the bucket; check the network or proxy, or pass --base-url): %w", url, err)
	}
	return fmt.Errorf("fetch: %s: %w", url, err)
}

// attempt1 makes one request, appending to the .part file, and finishes the file when complete.
func attempt1(ctx context.Context, f File, part string, o Options, sum *Summary, tag string) error {
	var have int64
	if st, err := os.Stat(part); err == nil {
		have = st.Size()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.URL, nil)
	if err != nil {
		return permanentError{err}
	}
	if have > 0 {
		req.Header.Set("Range", "bytes="+strconv.FormatInt(have, 10)+"-")
	}
	resp, err := o.Client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var flags int
	switch {
	case resp.StatusCode == http.StatusPartialContent && have > 0:
		start, ok := rangeStart(resp.Header.Get("Content-Range"))
		if !ok || start != have {
			return fmt.Errorf("server resumed at %q, want byte %d", resp.Header.Get("Content-Range"), have)
		}
		flags = os.O_WRONLY | os.O_APPEND
		sum.Resumed++
		fmt.Fprintf(o.Progress, "fetch: %s %s: resuming at %s\n", tag, f.Dest, mb(have))
	case resp.StatusCode == http.StatusOK:
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
		have = 0
	case resp.StatusCode == http.StatusRequestedRangeNotSatisfiable && have > 0:
		// The .part file already holds the whole file (or garbage past its end): check it.
		return finish(f, part, o, tag, have)
	case resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests:
		return fmt.Errorf("HTTP %s", resp.Status)
	default:
		return permanentError{fmt.Errorf("HTTP %s", resp.Status)}
	}
	out, err := os.OpenFile(part, flags, 0o644)
	if err != nil {
		return permanentError{err}
	}
	n, copyErr := io.Copy(out, resp.Body)
	sum.Bytes += n
	if err := out.Close(); err != nil && copyErr == nil {
		return permanentError{err}
	}
	if copyErr != nil {
		return fmt.Errorf("connection lost after %s: %w", mb(have+n), copyErr)
	}
	if resp.ContentLength >= 0 && n != resp.ContentLength {
		return fmt.Errorf("connection lost after %s of %s", mb(have+n), mb(have+resp.ContentLength))
	}
	return finish(f, part, o, tag, have+n)
}

// finish verifies a complete .part file and renames it into place. A corrupt file is removed,
// so the next attempt downloads it from the start.
func finish(f File, part string, o Options, tag string, size int64) error {
	if err := verify(part); err != nil {
		os.Remove(part)
		return fmt.Errorf("downloaded file is corrupt (%v); discarded", err)
	}
	if err := os.Rename(part, f.Dest); err != nil {
		return permanentError{err}
	}
	fmt.Fprintf(o.Progress, "fetch: %s %s: done (%s, verified)\n", tag, f.Dest, mb(size))
	return nil
}

// verify checks a downloaded file: a gzip file (by magic bytes) must decompress completely with
// matching CRC-32 and size; other files are accepted as they are.
func verify(path string) error {
	fh, err := os.Open(path)
	if err != nil {
		return err
	}
	defer fh.Close()
	var magic [2]byte
	if n, _ := io.ReadFull(fh, magic[:]); n < 2 || magic[0] != 0x1f || magic[1] != 0x8b {
		if strings.HasSuffix(path, ".gz.part") {
			return errors.New("not a gzip file")
		}
		return nil
	}
	if _, err := fh.Seek(0, io.SeekStart); err != nil {
		return err
	}
	zr, err := gzip.NewReader(fh)
	if err != nil {
		return fmt.Errorf("gzip: %w", err)
	}
	if _, err := io.Copy(io.Discard, zr); err != nil {
		return fmt.Errorf("gzip: %w", err)
	}
	return zr.Close()
}

// rangeStart parses the first byte of a Content-Range header "bytes START-END/SIZE".
func rangeStart(h string) (int64, bool) {
	rest, ok := strings.CutPrefix(h, "bytes ")
	if !ok {
		return 0, false
	}
	start, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(start, 10, 64)
	return n, err == nil
}

func mb(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }
