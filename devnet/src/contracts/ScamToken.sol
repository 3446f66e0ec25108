// SPDX-License-Identifier: MIT
// The devnet's deliberately unsafe token. Two traps the safety view must find with real
// checks: transfers into a marked pool (sells) lose `sellTaxBps` to the owner, and the owner
// can mint at will. Transfers from the owner are untaxed so the owner can seed the pool.
pragma solidity ^0.8.20;

import "./DevnetERC20.sol";

contract ScamToken is DevnetERC20 {
    uint8 public constant decimals = 18;
    uint256 public immutable sellTaxBps;
    address public owner;

    mapping(address => bool) public isPool;

    modifier onlyOwner() {
        require(msg.sender == owner, "owner");
        _;
    }

    constructor(string memory name_, string memory symbol_, uint256 sellTaxBps_, uint256 supply) DevnetERC20(name_, symbol_) {
        require(sellTaxBps_ <= 10_000, "tax");
        sellTaxBps = sellTaxBps_;
        owner = msg.sender;
        _mint(msg.sender, supply);
    }

    function mint(address to, uint256 value) external onlyOwner {
        _mint(to, value);
    }

    function setPool(address pool, bool taxed) external onlyOwner {
        isPool[pool] = taxed;
    }

    // The whole value must be there, as for any transfer; the taxed part then goes to the owner
    // as a second Transfer after the one to `to`.
    function _move(address from, address to, uint256 value) internal override {
        require(balanceOf[from] >= value, "balance");
        uint256 tax = (isPool[to] && from != owner) ? (value * sellTaxBps) / 10_000 : 0;
        super._move(from, to, value - tax);
        if (tax > 0) super._move(from, owner, tax);
    }
}
