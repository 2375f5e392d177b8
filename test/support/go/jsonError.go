// geth writes a JSON-RPC error as encoding/json marshals it: here, the message of a revert
// whose reason bytes are given in hex on the command line.
package main

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
)

type jsonError struct {
	Code    int         `json:"code"`
	Message string      `json:"message"`
	Data    interface{} `json:"data,omitempty"`
}

func main() {
	reason, _ := hex.DecodeString(os.Args[1])
	out, _ := json.Marshal(jsonError{Code: 3, Message: "execution reverted: " + string(reason)})
	fmt.Println(string(out))
}
