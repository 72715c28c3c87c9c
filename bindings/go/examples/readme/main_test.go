package main

// main.go is the Go program of the READMEs (the repository's README.md,
// section "Go", and bindings/go/README.md). These tests run it and check
// that the READMEs show exactly this file, so the two cannot drift.

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProgram runs main and checks that it prints what the "// Output:"
// comment at the end of main.go says.
func TestProgram(t *testing.T) {
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	var want string
	for _, line := range strings.Split(string(src), "\n") {
		if s, ok := strings.CutPrefix(strings.TrimSpace(line), "// Output: "); ok {
			want = s + "\n"
		}
	}
	if want == "" {
		t.Fatal(`main.go has no "// Output: ..." line`)
	}

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout = w
	done := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(r)
		done <- b
	}()
	func() {
		defer func() { os.Stdout = stdout }()
		main()
	}()
	w.Close()
	got := string(<-done)
	if got != want {
		t.Errorf("main printed %q, its // Output: comment says %q", got, want)
	}
}

// TestREADMEs checks that every ```go block that is a whole program
// ("package main") in the READMEs is main.go, byte for byte. The
// repository's README.md is checked in a checkout only: the module made
// by make go-module has no link_checkout.go and no repository around it.
func TestREADMEs(t *testing.T) {
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	readmes := []string{filepath.Join("..", "..", "README.md")}
	if _, err := os.Stat(filepath.Join("..", "..", "link_checkout.go")); err == nil {
		readmes = append(readmes, filepath.Join("..", "..", "..", "..", "README.md"))
	} else {
		t.Log("not in a checkout of the repository: only bindings/go/README.md is checked")
	}
	for _, readme := range readmes {
		text, err := os.ReadFile(readme)
		if err != nil {
			t.Fatal(err)
		}
		programs := 0
		for _, block := range goBlocks(string(text)) {
			if !strings.HasPrefix(block, "package main\n") {
				continue
			}
			programs++
			if block != string(src) {
				t.Errorf("%s shows a Go program that is not examples/readme/main.go (first difference at line %d): "+
					"copy main.go into the README's ```go block", readme, firstDiffLine(block, string(src)))
			}
		}
		if programs == 0 {
			t.Errorf("%s has no ```go block with a whole program (package main); it should show examples/readme/main.go", readme)
		}
	}
}

// goBlocks returns the contents of the ```go fenced blocks of a Markdown
// text, each ending in a newline.
func goBlocks(text string) []string {
	var blocks []string
	var cur *bytes.Buffer
	for _, line := range strings.SplitAfter(text, "\n") {
		switch {
		case cur == nil && strings.TrimRight(line, "\n") == "```go":
			cur = new(bytes.Buffer)
		case cur != nil && strings.TrimRight(line, "\n") == "```":
			blocks = append(blocks, cur.String())
			cur = nil
		case cur != nil:
			cur.WriteString(line)
		}
	}
	return blocks
}

func firstDiffLine(a, b string) int {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(la) && i < len(lb); i++ {
		if la[i] != lb[i] {
			return i + 1
		}
	}
	if len(la) < len(lb) {
		return len(la) + 1
	}
	return len(lb) + 1
}
