//go:build !unix

package canonical

import (
	"os"

	"github.com/apache/arrow/go/v15/arrow/ipc"
)

// mapFile opens path for positioned reads; platforms without mmap read through the file.
func mapFile(path string) (ipc.ReadAtSeeker, func() error, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	return f, f.Close, nil
}
