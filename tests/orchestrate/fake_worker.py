"""A stand-in worker for the C++ protocol tests: each command name picks a behaviour."""
import json
import os
import sys
import time

if "--no-greeting" in sys.argv:
    print("not json at all", flush=True)
    sys.exit(0)
print(json.dumps({"ready": True, "pid": os.getpid(), "environment": {"backend": "cpu"}}), flush=True)
for line in sys.stdin:
    req = json.loads(line)
    cmd = req["cmd"]
    if cmd == "echo":
        print(json.dumps({"id": req["id"], "ok": True, "echo": req.get("value")}), flush=True)
    elif cmd == "fail":
        print(json.dumps({"id": req["id"], "ok": False, "error": {"kind": "compile_error", "message": "bad kernel",
                                                                   "traceback": "Traceback..."}}), flush=True)
    elif cmd == "hang":
        time.sleep(600)
    elif cmd == "die":
        print("dying now", file=sys.stderr, flush=True)
        os._exit(5)
    elif cmd == "abort":
        os.abort()
    elif cmd == "garbage":
        print("this is not json", flush=True)
    elif cmd == "wrong_id":
        print(json.dumps({"id": req["id"] + 1, "ok": True}), flush=True)
    elif cmd == "shutdown":
        print(json.dumps({"id": req["id"], "ok": True, "bye": True}), flush=True)
        break
