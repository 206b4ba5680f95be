module.exports={testEnvironment:"node"}
