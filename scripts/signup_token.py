"""The token of the sign-up link a service with no SMTP server wrote for an address.

`python3 scripts/signup_token.py MAIL_DIR EMAIL` waits (up to 20 s) for the `.eml` file of the
sign-up mail to EMAIL in MAIL_DIR (`<data-dir>/mail`) and prints the token of its link, for
scripts that sign up on a throwaway service (`POST /api/v1/sign-ups/{token}` finishes it).
"""

import email
import email.policy
import pathlib
import re
import sys
import time


def token(mail_dir, address, wait=20.0):
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        for path in sorted(pathlib.Path(mail_dir).glob("*-signup.eml"), reverse=True):
            message = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
            if address.lower() not in str(message["To"]).lower():
                continue
            text = message.get_body(preferencelist=("plain",)).get_content()
            found = re.search(r"/signup/([0-9A-Za-z_-]+)", text)
            if found:
                return found.group(1)
        time.sleep(0.1)
    raise SystemExit(f"no sign-up mail to {address} in {mail_dir} within {wait:.0f} s")


if __name__ == "__main__":
    print(token(sys.argv[1], sys.argv[2]))
