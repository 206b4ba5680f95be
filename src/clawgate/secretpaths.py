"""The user's credential stores: the one list of what holds keys, tokens and passwords in a home
directory, for every channel that must keep them unread.

- The command checker (``validators/credentials.py``) asks when a command reads one.
- The file tools (``tools/paths.py``) refuse every path under one.
- The sandboxes (``executors/view.py``) mount the home directory read-only *minus* these: each
  one that exists is covered by an empty read-only directory or an empty file.

Paths are relative to the home directory. ``HOME_SECRETS`` are stores whose whole content is
secret (a directory covers everything below it). ``HOME_KEY_DIRS`` are the directories keys
live in: the checker reads their key files (``~/.ssh/id_*``) and the directory as a whole as
secret, not ``~/.ssh/known_hosts``; a sandbox hides them whole.
"""

from __future__ import annotations

HOME_KEY_DIRS: tuple[str, ...] = (".ssh", ".aws", ".docker", ".config/gh")

HOME_SECRETS: tuple[str, ...] = (
    # cloud, cluster, registry and forge logins
    ".aws/credentials", ".aws/sso", ".netrc", ".docker/config.json", ".kube",
    ".git-credentials", ".pgpass", ".my.cnf", ".pypirc", ".npmrc", ".gnupg",
    ".config/gh/hosts.yml", ".config/gcloud", ".azure", ".vault-token",
    ".terraform.d/credentials.tfrc.json", ".cargo/credentials", ".cargo/credentials.toml",
    ".password-store", ".local/share/keyrings",
    # coding agents' own logins
    ".claude/.credentials.json", ".codex/auth.json", ".gemini/oauth_creds.json",
    ".config/github-copilot", ".local/share/opencode/auth.json",
    ".config/gcloud/access_tokens.db", ".config/gcloud/credentials.db",
    # shell and console histories: tokens and passwords typed on command lines
    ".bash_history", ".zsh_history", ".zhistory", ".histfile", ".sh_history",
    ".local/share/fish/fish_history", ".python_history", ".psql_history",
    ".mysql_history", ".node_repl_history", ".sqlite_history", ".rediscli_history",
    # browsers' cookie and password stores, and the macOS keychains
    ".config/google-chrome", ".config/chromium", ".config/BraveSoftware",
    ".config/microsoft-edge", ".mozilla/firefox", "snap/firefox",
    "Library/Application Support/Google/Chrome",
    "Library/Application Support/Firefox", "Library/Cookies", "Library/Keychains",
    # chat and editor session stores: login tokens kept as they are
    ".config/Slack/Cookies", ".config/Slack/Local Storage", ".config/discord/Local Storage",
    "Library/Application Support/discord/Local Storage",
    "Library/Application Support/Slack/Cookies",
    ".config/Code/User/globalStorage/state.vscdb",
    "Library/Application Support/Code/User/globalStorage/state.vscdb",
    # crypto wallets and keystores (their keys: HOME_WALLET_KEYS)
    ".config/solana/id.json", ".electrum", ".electrum-ltc", ".bitcoin/wallet.dat",
    ".bitcoin/wallets", ".litecoin/wallet.dat", ".dogecoin/wallet.dat", ".ethereum/keystore",
    "Library/Ethereum/keystore", ".config/Exodus", "Library/Application Support/Exodus",
    "Monero/wallets", ".sui/sui_config/sui.keystore", ".near-credentials",
    ".foundry/keystores", ".aptos", ".brownie/accounts", ".ape/accounts",
)

# Crypto wallets' private keys and seeds, and the stores that keep a chat login's token as it
# is, as ``fnmatch`` patterns relative to the home directory (``*`` crosses ``/``; a directory
# covers everything below it): shown or copied, the money or the account is gone, as with an
# SSH key. The wallets' settings beside them (``~/.config/solana/cli/config.yml``) are not.
HOME_WALLET_KEYS: tuple[str, ...] = (
    ".config/solana/*.json", ".electrum/wallets", ".electrum/testnet/wallets",
    ".electrum-ltc/wallets", ".bitcoin/wallet.dat", ".bitcoin/wallets", ".bitcoin/*/wallet.dat",
    ".bitcoin/*/wallets", ".litecoin/wallet.dat", ".dogecoin/wallet.dat",
    ".ethereum/keystore", ".ethereum/*/keystore", "Library/Ethereum/keystore",
    ".config/Exodus/exodus.wallet", "Library/Application Support/Exodus/exodus.wallet",
    ".monero/*.keys", ".bitmonero/*.keys", "Monero/*.keys",
    ".sui/sui_config/sui.keystore", ".near-credentials", ".foundry/keystores",
    ".aptos/config.yaml", ".brownie/accounts", ".ape/accounts",
    # browser extension wallets' vaults (MetaMask, Phantom), in any browser profile
    "*/Local Extension Settings/nkbihfbeogaeaoehlefnkodbefgpgknn",
    "*/Local Extension Settings/bfnaelmomeimhlpmgjnjophhpkkoljpa",
    # chat clients' local storage, where the login token is kept as it is
    ".config/discord/Local Storage", "Library/Application Support/discord/Local Storage",
)

# A file of each of those stores as it is usually named, for the searches by name that find
# them (``find ~ -name 'UTC--*'``, ``-name wallet.dat``).
HOME_WALLET_EXAMPLES: tuple[str, ...] = (
    ".ethereum/keystore/UTC--2024-01-01T00-00-00.000Z--0", "Library/Ethereum/keystore/UTC--0",
    ".bitcoin/wallet.dat", ".bitcoin/wallets/default_wallet", ".monero/wallet.keys",
    "Monero/wallets/wallet.keys", ".config/solana/id.json",
    ".electrum/wallets/default_wallet", ".config/Exodus/exodus.wallet/seed.seco",
    ".sui/sui_config/sui.keystore", ".aptos/config.yaml", ".foundry/keystores/deployer",
)

# The directories of those wallets whose files, read one by one, include the keys.
HOME_WALLET_DIRS: tuple[str, ...] = (
    ".config/solana", ".electrum", ".electrum-ltc", ".ethereum", ".config/Exodus",
    "Library/Application Support/Exodus", ".sui", ".sui/sui_config", ".aptos", ".foundry",
    ".monero", "Monero", ".bitcoin",
)

# Stores among HOME_SECRETS whose text is itself a live credential (a password or token in
# plain text, ready to use): shown, it is as lost as a private key.
HOME_PLAINTEXT_SECRETS: tuple[str, ...] = (
    ".git-credentials", ".netrc", ".pgpass", ".aws/credentials", ".vault-token",
    ".config/gh/hosts.yml", ".docker/config.json", ".cargo/credentials",
    ".cargo/credentials.toml", ".terraform.d/credentials.tfrc.json",
    ".claude/.credentials.json", ".codex/auth.json", ".gemini/oauth_creds.json",
    ".local/share/opencode/auth.json",
    # logins kept by package registries' and clusters' clients, and the cloud's default
    # credentials: an upload token (``password = pypi-…``), an ``_authToken``, a cluster's
    # client key or bearer token, a refresh token with its client secret
    ".pypirc", ".npmrc", ".kube/config", ".my.cnf",
    ".config/gcloud/application_default_credentials.json",
    ".config/gcloud/credentials.db", ".config/gcloud/access_tokens.db",
)

# The tokens a cluster or cloud mounts into a pod for its workload identity: bearer tokens in
# plain text (a Kubernetes service account's, EKS's and Azure's workload identity); and the
# secrets Docker and Compose mount into a container, one plain-text file a secret under
# /run/secrets (its name is the secret's: ``/run/secrets/db_password``).
WORKLOAD_TOKENS: tuple[str, ...] = (
    "/run/secrets", "/var/run/secrets",
    "/var/run/secrets/kubernetes.io/serviceaccount", "/run/secrets/kubernetes.io/serviceaccount",
    "/var/run/secrets/eks.amazonaws.com/serviceaccount",
    "/run/secrets/eks.amazonaws.com/serviceaccount", "/var/run/secrets/azure/tokens",
    "/run/secrets/azure/tokens",
)

# System files of the same kind, outside any home directory.
SYSTEM_SECRETS: tuple[str, ...] = ("/etc/shadow", "/etc/gshadow", "/etc/sudoers",
                                   *WORKLOAD_TOKENS)

SECRET_WHY = ("a credential store (keys, tokens, passwords, cookies, a wallet or a shell "
              "history)")


def home_secret_stores() -> tuple[str, ...]:
    """Every store a sandbox hides and the file tools refuse, relative to the home directory:
    the key directories whole, then the other stores not already inside one."""
    below = tuple(f"{folder}/" for folder in HOME_KEY_DIRS)
    rest = (p for p in HOME_SECRETS if not p.startswith(below))
    return tuple(dict.fromkeys((*HOME_KEY_DIRS, *rest)))
