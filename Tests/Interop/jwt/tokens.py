#!/usr/bin/env python3
"""Bearer tokens for Sluice's JWT tests, made with PyJWT (PyPI), an implementation nobody
here wrote.

    tokens.py JWKS_OUT [--issuer ISS] [--audience AUD] [--rotated JWKS2_OUT]

Makes an RSA, an EC P-256 and an Ed25519 key, writes their public halves as a JWKS to
JWKS_OUT, and prints one JSON object of named tokens on stdout. With --rotated, also writes
the set an identity provider publishes after a rotation (the three keys and rsa-2) to
JWKS2_OUT; `unknown_kid` is signed by rsa-2.

  rs256, es256, eddsa   valid, each may read stream `serve-*` (and rs256 publish `in`)
  alg_none              unsigned (`alg: none`)
  hs256_public_key      HS256 with the RSA public key's PEM as the HMAC secret
  unknown_kid           signed by a key the set does not have
  tampered              rs256's signature on a payload that grants everything
  expired               expired an hour ago
  not_yet               valid from an hour from now
  wrong_audience        for another audience
  wrong_issuer          from another issuer
  other_stream          valid, but may read only `other`
  no_permissions        valid, no sluice_permissions
  metrics_only          valid, may read /metrics only
  api                   valid, may use the control API
  no_expiry             valid signature, no `exp`
  long                  16 KB (past the 8 KB Sluice reads)
  huge                  1 MB (past the 80 KB of headers SwiftNIO parses)
  garbage               not base64
"""
import argparse
import base64
import hashlib
import hmac
import json
import time

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def public_jwk(key, kid, alg):
    algorithm = {"RS256": jwt.algorithms.RSAAlgorithm, "ES256": jwt.algorithms.ECAlgorithm,
                 "EdDSA": jwt.algorithms.OKPAlgorithm}[alg]
    jwk = json.loads(algorithm.to_jwk(key.public_key()))
    jwk.update(kid=kid, alg=alg, use="sig")
    return jwk


def main():
    p = argparse.ArgumentParser()
    p.add_argument("jwks_out")
    p.add_argument("--issuer", default="https://issuer.test")
    p.add_argument("--audience", default="sluice")
    p.add_argument("--rotated")
    a = p.parse_args()
    rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    ec_key = ec.generate_private_key(ec.SECP256R1())
    ed_key = ed25519.Ed25519PrivateKey.generate()
    stranger = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    jwks = {"keys": [public_jwk(rsa_key, "rsa-1", "RS256"), public_jwk(ec_key, "ec-1", "ES256"),
                     public_jwk(ed_key, "ed-1", "EdDSA")]}
    with open(a.jwks_out, "w") as f:
        json.dump(jwks, f)
    if a.rotated:
        with open(a.rotated, "w") as f:
            json.dump({"keys": jwks["keys"] + [public_jwk(stranger, "rsa-2", "RS256")]}, f)

    now = int(time.time())
    read = [{"action": "read", "path": "serve-*"}]

    def claims(**extra):
        c = {"iss": a.issuer, "aud": a.audience, "sub": "tester", "iat": now, "exp": now + 600,
             "sluice_permissions": read}
        c.update(extra)
        return c

    def sign(c, key=rsa_key, alg="RS256", kid="rsa-1"):
        return jwt.encode(c, key, algorithm=alg, headers={"kid": kid})

    pem = rsa_key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    head = b64(json.dumps({"alg": "HS256", "typ": "JWT", "kid": "rsa-1"}).encode())
    body = b64(json.dumps(claims()).encode())
    forged = f"{head}.{body}." + b64(hmac.new(pem, f"{head}.{body}".encode(), hashlib.sha256).digest())
    none_head = b64(json.dumps({"alg": "none", "typ": "JWT", "kid": "rsa-1"}).encode())
    valid = sign(claims())
    everything = b64(json.dumps(claims(sluice_permissions=[{"action": a} for a in ("read", "publish", "api", "metrics")])).encode())
    vh, _, vs = valid.split(".")
    tokens = {
        "tampered": f"{vh}.{everything}.{vs}",
        "rs256": sign(claims(sluice_permissions=read + [{"action": "publish", "path": "in"}])),
        "es256": sign(claims(), ec_key, "ES256", "ec-1"),
        "eddsa": sign(claims(), ed_key, "EdDSA", "ed-1"),
        "alg_none": f"{none_head}.{body}.",
        "hs256_public_key": forged,
        "unknown_kid": sign(claims(), stranger, "RS256", "rsa-2"),
        "expired": sign(claims(exp=now - 3600, iat=now - 7200)),
        "not_yet": sign(claims(nbf=now + 3600)),
        "wrong_audience": sign(claims(aud="someone-else")),
        "wrong_issuer": sign(claims(iss="https://evil.test")),
        "other_stream": sign(claims(sluice_permissions=[{"action": "read", "path": "other"}])),
        "no_permissions": sign({k: v for k, v in claims().items() if k != "sluice_permissions"}),
        "metrics_only": sign(claims(sluice_permissions=[{"action": "metrics"}])),
        "api": sign(claims(sluice_permissions=[{"action": "api"}]), ec_key, "ES256", "ec-1"),
        "no_expiry": sign({k: v for k, v in claims().items() if k != "exp"}),
        "long": sign(claims(padding="x" * (16 << 10))),
        "huge": sign(claims(padding="x" * (1 << 20))),
        "garbage": "!!!not-base64!!!.@@@.###",
    }
    print(json.dumps(tokens))


if __name__ == "__main__":
    main()
