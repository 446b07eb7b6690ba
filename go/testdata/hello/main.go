// SPDX-License-Identifier: MIT

// hello is the Go binary the package's tests index (go test links its own
// test binary without a symbol table).
package main

import (
	"fmt"
	"os"
)

//go:noinline
func greet(who string) string { return "hello, " + who }

func main() {
	fmt.Fprintln(os.Stdout, greet("symlazy"))
}
