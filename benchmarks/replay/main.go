// Command replay replays captured JDWP traces through the Speculator and
// reports what speculation would have saved.
package main

import "fmt"

func main() {
	fmt.Println("replay: the replay harness is not built yet (see the open issue on the journal and replay harness).")
}
