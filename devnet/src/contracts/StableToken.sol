// SPDX-License-Identifier: MIT
// Devnet stand-in for USDC and DAI: a plain ERC-20 whose whole supply is minted once in the
// constructor. No owner and no mint function, so the safety view has nothing to flag.
pragma solidity ^0.8.20;

import "./DevnetERC20.sol";

contract StableToken is DevnetERC20 {
    uint8 public immutable decimals;

    constructor(string memory name_, string memory symbol_, uint8 decimals_, uint256 supply, address holder)
        DevnetERC20(name_, symbol_)
    {
        decimals = decimals_;
        _mint(holder, supply);
    }
}
